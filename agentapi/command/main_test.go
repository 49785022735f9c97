package command

import (
	"testing"

	"github.com/wfrun/wfrun/agentapi/workspace"
	"github.com/wfrun/wfrun/internal/testkit/leaktest"
)

// TestMain makes the test binary the sandbox helper, as wfrun's main does,
// for the specs that ask for the sandbox.
func TestMain(m *testing.M) {
	workspace.Init()
	leaktest.VerifyTestMain(m)
}
