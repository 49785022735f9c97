package mcptools

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/wfrun/wfrun/internal/testkit/leaktest"
	"github.com/wfrun/wfrun/internal/testkit/testbin"
)

// testmcp is the path of the internal/testkit/testmcp server, built once by TestMain.
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
	if testmcp, err = testbin.Build(dir, "github.com/wfrun/wfrun/internal/testkit/testmcp"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return b.m.Run()
}

func TestMain(m *testing.M) { goleak.VerifyTestMain(buildThenRun{m}, leaktest.Options()...) }

// childProcesses lists the processes whose parent is this test binary
// (zombies included), or skips the test where /proc is not available.
func childProcesses(t *testing.T) []testbin.Child {
	t.Helper()
	kids, ok := testbin.Children()
	if !ok {
		t.Skip("no /proc to list child processes")
	}
	return kids
}
