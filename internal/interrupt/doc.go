// Package interrupt waits for something to end while signals may come:
// the first signal asks it to stop and the wait goes on, a second one
// gives up waiting. It is how every foreground command of wfrun (a run,
// a resume, the parent agent, a server, a run on Temporal) treats Ctrl-C
// and SIGTERM, in one place.
//
// # The model
//
// Wait takes the channel that delivers the outcome, the channel of
// signals and the function that asks for a stop; it returns an Outcome
// saying what was delivered, which signal interrupted the wait, and which
// one, if any, made it give up. Go turns a blocking call into such a
// channel. Context is a context that the first signal cancels, for a call
// that takes one.
//
// # What it owns
//
// The two-signal policy, the context a signal cancels, and how a signal is named to a person (Name).
//
// # What it must never do
//
// It never installs a signal handler (the caller's channel is the only
// source), never writes to a terminal (the caller says what happened) and
// never exits the process: after a second signal the caller decides, and
// the thing waited for may still be running.
package interrupt
