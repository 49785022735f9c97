// Package runtime runs one workflow script: it owns the run's event loop, the
// host functions injected into the VM (agent, parallel, pipeline, phase, log,
// console, args, budget, workflow), and the scheduler that runs children
// through an agentapi.Provider under FIFO concurrency slots, caps, budgets,
// deadlines and cancellation.
//
// # Two sides of a run
//
// The VM side is one goroutine, the loop goroutine (the caller of Run). It
// alone touches the goja VM: host functions, promise resolution, exporting
// the result. The host side is everything else: one goroutine per running
// child, the cancellation watcher, timers. The host side never touches the
// VM; it hands outcomes back through loop.register's enqueue function, and
// the only VM call it makes is goja's Interrupt, which goja allows from any
// goroutine. Keeping this boundary explicit is what lets the VM live in
// another process (runtime/isolate) or be replayed by a durable scheduler.
//
// # Schedulers
//
// The host side's goroutines, the loop's wait, the timers and the clock
// all go through Config.Scheduler (scheduler.go): Go's own by default, a
// Temporal workflow's coroutines, conditions and timers in engine/temporal.
// Nothing else in the run starts a goroutine, blocks on a channel or reads
// the clock, except the heap watchdog and the busy limit (memory.go), which
// bound the process's real memory and time and can only end a run; a
// scheduler that is a LimitRecorder (limits.go) has them, and the sandbox's
// regexp timeout, decided once and replayed.
//
// # Fatal versus per-item
//
// A child that fails is data: agent() resolves to null (or an envelope with
// status and error). Misuse and tripped limits are fatal: the host function
// records the error, interrupts the VM (a JavaScript catch cannot see an
// interrupt) and the run ends with that error.
//
// # Ending
//
// Run returns when the script's promise settles, when a fatal error or
// cancellation stops the loop, or when the loop is idle while the script is
// still waiting (SCRIPT_STALLED). Then every child still queued is dropped,
// every child still running is cancelled, and Run waits a short grace for
// them. A child whose provider ignores cancellation is ended as cancelled
// (its agent.end is emitted) and its late result is dropped; Outcome.Drained
// tells when its goroutine has finally returned. Every agent.start is paired
// with exactly one agent.end before Run returns.
//
// # Durable runs
//
// With Config.Journal, every child is written to the journal (and is
// durable) before its outcome is handed to the script, and a resumed run
// replays the calls an earlier attempt finished: the longest prefix, in
// seq order, of completed calls whose CallKey is unchanged is answered
// from the journal, in the order those outcomes first reached the script;
// the first call that differs runs live, and so does every call after it
// (journal.go, replay.go). The Journal interface carries only data, so the
// journal may be a file, a pipe or a workflow engine's history. Without a
// journal the run writes nothing.
//
// Imports: sandbox, agentapi, meta; never engine or cmd.
package runtime
