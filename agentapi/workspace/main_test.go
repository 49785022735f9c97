package workspace

import (
	"testing"

	"github.com/wfrun/wfrun/internal/testkit/leaktest"
)

// TestMain makes the test binary the sandbox helper too: Confine
// re-executes it, and Init takes over before any test runs.
func TestMain(m *testing.M) {
	Init()
	leaktest.VerifyTestMain(m)
}
