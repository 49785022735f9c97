package mcptools

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/wfrun/wfrun/internal/leaktest"
)

// testmcp is the path of the internal/testmcp server, built once by TestMain.
var testmcp string

// buildThenRun builds the test server before the tests run and removes it
// after; goleak checks for goroutines once everything has ended.
type buildThenRun struct{ m *testing.M }

func (b buildThenRun) Run() int {
	dir, err := os.MkdirTemp("", "mcptools-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	testmcp = filepath.Join(dir, "testmcp")
	// go test puts its own GOROOT/bin first on PATH.
	out, err := exec.Command("go", "build", "-o", testmcp, "github.com/wfrun/wfrun/internal/testmcp").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building internal/testmcp: %v\n%s", err, out)
		return 1
	}
	return b.m.Run()
}

func TestMain(m *testing.M) { goleak.VerifyTestMain(buildThenRun{m}, leaktest.Options()...) }

// childProcesses lists the processes whose parent is this test binary
// (zombies included), or skips the test where /proc is not available.
func childProcesses(t *testing.T) []int {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		t.Skip("no /proc to list child processes")
	}
	var kids []int
	for _, path := range stats {
		data, err := os.ReadFile(path)
		if err != nil {
			continue // the process has gone
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		s := string(data)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) < 2 {
			continue
		}
		if ppid, _ := strconv.Atoi(fields[1]); ppid == os.Getpid() {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
			kids = append(kids, pid)
		}
	}
	return kids
}
