package openai

import (
	"testing"

	"github.com/wfrun/wfrun/agentapi/workspace"
	"github.com/wfrun/wfrun/internal/testkit/leaktest"
)

func TestMain(m *testing.M) {
	workspace.Init() // sandboxed Bash re-executes this test binary as the helper
	leaktest.VerifyTestMain(m)
}
