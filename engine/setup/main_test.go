package setup_test

import (
	"testing"

	"github.com/wfrun/wfrun/internal/testkit/leaktest"
)

// Providers may start MCP servers and providers with goroutines of their
// own: none may outlive Set.Close.
func TestMain(m *testing.M) {
	leaktest.VerifyTestMain(m)
}
