// Package calls reads the agent() calls of a script statically: the
// option keys each call writes as an object literal, with their positions,
// so that the engine can refuse an option nobody honours before anything
// runs, at the line of the key.
//
// It reads a parsed script through the small Script interface (the
// sandbox's Script satisfies it); it executes nothing and knows no VM, and
// the sandbox, which parses, knows nothing of agents. The engine asks the
// sandbox to keep the calls of "agent" (sandbox.Parse's watch) and hands
// the script here.
package calls
