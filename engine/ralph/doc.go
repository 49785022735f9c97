// Package ralph is the Ralph loop: one objective, worked on by a fresh
// sub-agent per round until the objective is met, the work is blocked, or
// the rounds or tokens run out. Each round sees only the objective, the
// last round's handoff and the shared workspace (its provider's), and
// must answer with a handoff:
//
//	{status: continue|complete|blocked, summary, evidence[], nextSteps[], blocker}
//
// The rules, checked on every handoff: continue needs next steps and no
// blocker; complete needs evidence and no next steps; blocked needs the
// blocker; a handoff larger than Options.MaxHandoffChars fails the round
// (it is never truncated). The loop ends complete, blocked,
// budget-limited (the round cap or the token budget) or round-failed (a
// round's agent failed or broke a rule; the error carries the last good
// handoff).
//
// The loop is a fixed workflow script (Script) run on the engine like any
// other, so it has the engine's events, limits, registry and, with a runs
// folder, its journal: each round's handoff is journaled, and a stopped
// loop resumed (Options.ResumeFromRunId, wfrun resume) replays the rounds
// it finished and goes on at the next one.
//
// Place: cmd → engine/tool → engine/ralph → engine. internal/testkit/layers holds
// the exact list of what it may import.
package ralph
