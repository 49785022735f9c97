// Package layers holds no code, only the test that keeps wfrun's import
// arrows pointing one way: cmd → engine → runtime → sandbox, with meta and
// agentapi usable from everywhere above them and agentapi importing none of
// the others (docs/architecture.md, "Packages"). The test reads the real
// import graph with `go list -deps`, so an arrow that turns back fails the
// build's tests, not a code review.
package layers
