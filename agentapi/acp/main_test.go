package acp

import (
	"fmt"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/internal/testkit/leaktest"
	"github.com/wfrun/wfrun/internal/testkit/testbin"
)

// testAgent is the path of the internal/testkit/testacp agent, built once by
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
	if testAgent, err = testbin.Build(dir, "github.com/wfrun/wfrun/internal/testkit/testacp"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	code := b.m.Run()
	if left := testbin.LiveChildren(2 * time.Second); len(left) > 0 {
		fmt.Fprintf(os.Stderr, "the tests left processes alive: %v\n", left)
		return 1
	}
	return code
}

func TestMain(m *testing.M) {
	engine.Init() // sandboxed terminals and isolated runs re-execute this test binary as the helper
	goleak.VerifyTestMain(buildThenRun{m}, leaktest.Options()...)
}
