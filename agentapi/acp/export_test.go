package acp

// Hooks for the tests of package acp_test, which run scripts through the
// engine.

// BuiltTestAgent is the path of the internal/testkit/testacp agent TestMain built.
func BuiltTestAgent() string { return testAgent }

// SetStarted installs the hook that sees each agent's process group.
func SetStarted(p *Provider, f func(pgid int)) { p.started = f }
