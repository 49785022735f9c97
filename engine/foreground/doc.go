// Package foreground runs wfrun's foreground commands for a person at a
// terminal — a script run, resume, retry, continue, ralph, the parent
// agent, the servers — so that a program embedding wfrun behind its own
// terminal gets the same progress line, the same answer to Ctrl-C and the
// same order of shutting down as the command line.
//
// # The model
//
// A Terminal is the person's side: stderr, the channel of signals and the
// function that shows a notice. OpenOutput opens where a command's events
// go besides its result: the event log of --events (setup.OpenEventLog)
// and the progress line (engine/progress), which is drawn only on a
// terminal that the log does not write to. Open builds the engine of an
// Invocation (setup.Open) with that output and says when the ledger was
// rebuilt; Session.Follow starts a run, draws its progress and waits for it
// while signals come: the first cancels the run, a second gives up waiting
// (internal/interrupt). Wait is that wait for anything else (a parent
// agent's answer, a server's end). Session.Close ends the sub-agents, then
// the engine they live in, then the providers and the tracer, then the
// event log; Session.Abandon, after a second signal, stops the providers
// and leaves the engine to the process's exit.
//
// # What it owns
//
// The two-signal policy as a person sees it (the notice of a second signal,
// the reason a cancelled run records), when the progress line is drawn, and
// the order in which a foreground command closes what it opened.
//
// # What it must never do
//
// It writes nothing to stdout and decides no exit status: the caller prints
// the result and maps it to its status. It installs no signal handler (the
// Terminal's channel is the only source) and parses no flags: the caller
// reads its inputs with engine/setup.
//
// Place: engine/foreground → engine/setup, engine/listing, engine/progress,
// engine/tool, engine/subagent, engine, internal/interrupt. cmd/wfrun calls it.
package foreground
