// Package isolate runs a workflow's VM in a child process of its own, so
// that a script which exhausts memory, overflows the Go stack or spins in
// native code ends only its run, never the process that embeds the engine.
//
// The model: the engine's process keeps everything that is not the
// script — providers, tools, MCP servers, the journal's file, the event
// sinks. Run re-executes the program's own binary in the helper mode
// ModeWord (which is why engine.Init must be the first call of main), and
// Main, in the child, runs runtime.Run on the script with a provider that
// forwards every agent() call back over the pipe. What crosses is data:
// frames of a 4-byte big-endian length and one JSON message carrying
// Version, at most MaxFrame bytes (protocol.go, fuzzed). The child gets no
// environment, a soft Go memory limit, Landlock with no file system or
// network where the kernel has it, and an operating-system memory limit —
// its own memory cgroup where one can be made, else RLIMIT_AS, else none
// (OSMemoryLimit says which). When it dies without an outcome, Run ends the
// run with RESOURCE_LIMIT, TIMEOUT or INTERNAL and ends every agent it had
// started, so the events still balance.
//
// The package owns the child process, its confinement and the pipe
// protocol. It must never run a provider or touch the file system in the
// child, and never let the child's output decide more than the run's own
// outcome: a broken or hostile child is a failed run, not a failed engine.
// docs/architecture.md ("Process isolation") is the longer account.
package isolate
