// Package benchkit holds what wfrun's benchmarks share, so that the engine's
// Go benchmarks and the side-by-side command (engine/internal/bench) measure the
// same thing the same way: a provider that holds every child until it is
// released, for measuring runs suspended on their children, and the
// process's resident memory.
//
// It owns nothing of a run. It must never be imported by the code wfrun
// ships: it is for benchmarks and the bench command only, and imports
// nothing of wfrun's but agentapi.
package benchkit
