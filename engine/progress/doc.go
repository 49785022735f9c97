// Package progress draws the live progress line of a run on a terminal:
// one line, redrawn in place on each event (at most every 100ms) and on a
// ticker so that the clock moves, and cleared before the result is
// printed.
//
//	▸ Audit · agents 3 running, 5 done, 1 failed · 12.3k tokens · 4.2s
//
// It owns the line's state, folded from the engine's events, its rendering
// (a phase title cut to 40 runes, control characters blanked: a title comes
// from the script) and the one goroutine that redraws it. It must never
// write anything but the line and the text a caller puts above it, and
// never decide what a command prints on stdout.
//
// Place: engine/progress → engine. engine/foreground draws it for wfrun
// SCRIPT.js, resume, retry, continue and ralph; cmd/wfrun for agent and
// runs on Temporal, through engine/foreground's Output.
package progress
