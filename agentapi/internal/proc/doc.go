// Package proc runs one external command the way wfrun's providers and
// tools need it run: in a process group of its own, with a minimal
// environment, a capped stdout, the tail of stderr, and a stop that cannot
// leave anything behind.
//
// Run is the whole of it. The command runs until it exits, its context is
// done, or (under OverflowStop) stdout passes the cap; in the last two
// cases the group gets SIGTERM, then SIGKILL after Job.Grace. Once the
// leader has exited, whatever is left of its group (a background job, a
// server it started) gets SIGKILL; on Linux this happens before the leader
// is reaped (waitid with WNOWAIT), so the group id cannot have been reused
// by an unrelated group in between. Run returns only after the leader is
// reaped and every goroutine it started has ended; a process that left the
// group (setsid, a daemon) is beyond its reach, and Run stops reading its
// pipes DrainTimeout after the group is gone.
//
// Attach is the same supervision for a process the caller talks to over
// its standard input and output for as long as it likes (an agent that
// speaks a protocol on stdio, or a terminal an agent asked for): the caller
// holds the pipes, ends the process with Stop (SIGTERM, then SIGKILL after
// a grace) or Kill, and Wait kills what is left of the group before the
// leader is reaped, exactly as Run does.
//
// Three callers with different needs share it: agentapi/acp, which talks
// to an ACP agent over its stdio (Attach); agentapi/command, for which a
// command's stdout is its answer (Run; more than the cap is a runaway:
// OverflowStop); and the Bash tool of agentapi/tools, for which output is a
// log (Run; OverflowDiscard keeps the command running and counts what was
// dropped; MergeStderr interleaves stderr as a terminal would).
//
// A sandboxed command's process starts with the sandbox's namespaces
// (Job.SysProcAttr, from workspace.Workspace.SysProcAttr); proc adds its
// own process group and supervises it like any other.
//
// The package is internal to agentapi's provider layer and imports only the
// standard library. It needs a Unix system (process groups); the group-id
// guarantee above is Linux's.
package proc
