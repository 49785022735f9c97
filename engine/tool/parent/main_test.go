package parent_test

import (
	"testing"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/internal/testkit/leaktest"
)

func TestMain(m *testing.M) {
	engine.Init() // isolated runs re-execute this test binary
	leaktest.VerifyTestMain(m, leaktest.StateDir())
}
