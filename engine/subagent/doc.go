// Package subagent keeps continuable sub-agents: background children of a
// parent agent that outlive one call. A parent starts one with a task and
// goes on working; the child's first turn runs in the background; the
// parent sends it follow-ups, interrupts its current turn, lists its
// children and their last reports, and waits for a turn's answer. Each
// child is a conversation of an agentapi.Conversational provider (openai,
// fake) that persists across turns, and across processes: its row, its
// inbox and its history live in the engine's run ledger (engine/ledger),
// its transcript in a folder of its own (Options.Dir, by default
// .wfrun/subagents/<childId>/). docs/subagents.md is the user's page.
//
// # Model
//
// A child's life: it is loaded (its conversation in this process) and
// either running a turn or idle between turns; or it is ready — in storage
// only, as every child is after the process that had it ended — until a
// message wakes it; or it has ended, failed (its provider broke, its
// history cannot be resumed) or cancelled (its parent closed it). A
// process holds the children it has loaded under a lease in the ledger,
// renewed every heartbeat, so that another process never loads the same
// child, and a child whose process died is ready again once the lease has
// run out.
//
// Every child has a FIFO inbox. Each accepted message is one turn, run in
// the order accepted, one at a time; the first is the start's prompt. A
// message is committed to the ledger, with an fsync, before Send returns,
// and a message sent while a turn runs waits for that turn: it never
// redirects work in progress. Interrupt cancels the running turn only: the
// turn ends cancelled, the conversation keeps what it had done, and the
// messages queued behind it run next. A turn the process did not finish
// (it was shut down, or died) is not run again on its own; it ends
// cancelled or abandoned and the messages after it stay queued until a
// message wakes the child.
//
// Lineage: a Caller is an owner (the MCP session's, the CLI's) or one of
// its children. A child whose depth is below Options.DepthLimit (default
// 2) gets tools of its own to start and talk to children (Options.ChildTools,
// narrowed by its persona like any tool); every child records its parent
// and depth, and starting past the limit is refused. A caller may send to,
// interrupt, wait for and close only its direct children; listing shows
// its children, or all its descendants in a stable pre-order. A child runs
// only on a provider that declares the depthLimit capability: one that
// gives its children no way to start agents the manager does not count.
//
// When a turn ends, every watcher (Watch) gets a Report; the MCP server
// turns it into notifications for the parent.
//
// # Goroutines
//
// One worker goroutine per child while its inbox has work (it ends when
// the inbox is empty), and one heartbeat goroutine per Manager. Close
// cancels the running turns, waits for the workers, saves and unloads
// every child (they are ready for the next process) and stops the
// heartbeat; it must be called before the engine is closed, since the
// ledger is the engine's.
//
// The package never touches a run or a VM: it uses the engine's providers
// and ledger only.
//
// Place: cmd → engine/mcpserver → engine/tool → engine/subagent → engine.
// internal/testkit/layers holds the exact list of what it may import.
package subagent
