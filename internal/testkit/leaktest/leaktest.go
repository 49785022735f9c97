// Package leaktest is the one place that says which goroutines may outlive a
// test: every test package that runs scripts calls VerifyTestMain instead of
// goleak's, so the exceptions stay the same everywhere.
package leaktest

import (
	"os"
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
// other than the allowed ones is still running. The cleanups run last,
// just before the process exits (a folder the whole package shared).
func VerifyTestMain(m *testing.M, cleanups ...func()) {
	opts := Options()
	if len(cleanups) > 0 {
		opts = append(opts, goleak.Cleanup(func(code int) {
			for _, c := range cleanups {
				c()
			}
			os.Exit(code)
		}))
	}
	goleak.VerifyTestMain(m, opts...)
}

// StateDir points $WFRUN_STATE_DIR at a new temporary folder, so that the
// package's durable runs keep their keys there instead of in the user's
// state folder, and returns the cleanup that removes it.
func StateDir() func() {
	dir, err := os.MkdirTemp("", "wfrun-state-")
	if err != nil {
		panic(err)
	}
	os.Setenv("WFRUN_STATE_DIR", dir)
	return func() { os.RemoveAll(dir) }
}
