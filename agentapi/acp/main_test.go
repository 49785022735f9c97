package acp

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/internal/leaktest"
)

// testAgent is the path of the internal/testacp agent, built once by
// TestMain.
var testAgent string

// buildThenRun builds the test agent before the tests run and removes it
// after, and fails the tests if any process they started is still alive;
// goleak checks for goroutines once everything has ended.
type buildThenRun struct{ m *testing.M }

func (b buildThenRun) Run() int {
	dir, err := os.MkdirTemp("", "acp-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	testAgent = filepath.Join(dir, "testacp")
	out, err := exec.Command("go", "build", "-o", testAgent, "github.com/wfrun/wfrun/internal/testacp").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building internal/testacp: %v\n%s", err, out)
		return 1
	}
	code := b.m.Run()
	if left := liveChildren(2 * time.Second); len(left) > 0 {
		fmt.Fprintf(os.Stderr, "the tests left processes alive: %v\n", left)
		return 1
	}
	return code
}

func TestMain(m *testing.M) {
	engine.Init() // sandboxed terminals and isolated runs re-execute this test binary as the helper
	goleak.VerifyTestMain(buildThenRun{m}, leaktest.Options()...)
}

// liveChildren lists the processes whose parent is this test binary and
// that are not zombies, waiting up to d for them to go; nil where /proc is
// not available.
func liveChildren(d time.Duration) []string {
	deadline := time.Now().Add(d)
	for {
		var live []string
		stats, _ := filepath.Glob("/proc/[0-9]*/stat")
		for _, path := range stats {
			data, err := os.ReadFile(path)
			if err != nil {
				continue // the process has gone
			}
			s := string(data)
			i := strings.LastIndexByte(s, ')')
			if i < 0 {
				continue
			}
			f := strings.Fields(s[i+1:])
			if len(f) < 2 || f[0] == "Z" {
				continue
			}
			if ppid, _ := strconv.Atoi(f[1]); ppid == os.Getpid() {
				live = append(live, s[:i+1])
			}
		}
		if len(live) == 0 || time.Now().After(deadline) {
			return live
		}
		time.Sleep(50 * time.Millisecond)
	}
}
