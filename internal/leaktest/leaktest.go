// Package leaktest is the one place that says which goroutines may outlive a
// test: every test package that runs scripts calls VerifyTestMain instead of
// goleak's, so the exceptions stay the same everywhere.
package leaktest

import (
	"testing"

	"go.uber.org/goleak"
)

// Options are the goleak options for wfrun's tests. The only exception is
// regexp2's shared clock goroutine: it serves the match timeout the sandbox
// sets for backtracking regexps and exits on its own a few seconds after the
// last match.
func Options() []goleak.Option {
	return []goleak.Option{goleak.IgnoreAnyFunction("github.com/dlclark/regexp2/v2.runClock")}
}

// VerifyTestMain runs the package's tests and then fails if any goroutine
// other than the allowed ones is still running.
func VerifyTestMain(m *testing.M) { goleak.VerifyTestMain(m, Options()...) }
