// Package ledger is the run ledger: a SQLite database (modernc.org/sqlite,
// no cgo) beside the run folders, in WAL mode, that outlives every process
// that writes to it. It holds one row per run (owner, name, status, stop
// reason, error, counts, usage, times, lineage, lease), one row per child
// (an agent snapshot), and each run's timeline of what happened to it.
//
// Several processes may open one ledger at once: WAL lets readers go on
// while one writer writes, every write transaction takes the write lock
// when it begins (BEGIN IMMEDIATE), and a busy database is waited for,
// not failed. The schema is kept in versioned migrations (migrations.go),
// applied in order inside transactions; PRAGMA user_version says which
// have run.
//
// A live run renews a heartbeat lease (Heartbeat). A run whose lease has
// expired while it was still running — its process died without settling
// it — is marked abandoned, with its unfinished children, the next time
// any process opens the ledger (Open, Sweep). The PID is recorded for
// people, never trusted: it may belong to another process by then.
//
// The control verbs (stop, retry, continue, follow_up) are decided by one
// pure function, Decide, from the run's status; Apply checks and records
// a verb in one transaction and appends it to the run's timeline. Carrying
// a verb out — cancelling a run, starting the retry — is the engine's
// work: the ledger stores, it never runs anything.
//
// Continuable sub-agents (engine/subagent) keep their state here too
// (subagents.go): one row per sub-agent with its lineage and usage, one
// row per accepted message (its inbox, each message one turn), and the
// provider's snapshot of its history, saved in the transaction that
// records the turn that produced it. An accepted message is committed
// with an fsync before Enqueue returns. A process that has a sub-agent
// loaded holds it under a lease, as a run's process does.
//
// Place: engine → engine/ledger; it knows no engine, runtime or journal.
// internal/testkit/layers holds the exact list of what it may import.
package ledger
