package runtime

import "github.com/wfrun/wfrun/internal/wferr"

// LimitRecorder is implemented by a Scheduler whose run must take the same
// steps every time it is replayed (engine/temporal). Three limits decide by
// what a machine measures, not by what the script did: the busy limit
// (Config.MaxBusy) and the heap watchdog (memory.go), and the sandbox's
// regular expression timeout. Where they fire differs between a first
// execution and a replay on a faster or slower machine, and a replay that
// goes another way is a non-determinism error. So a run whose scheduler is
// a LimitRecorder counts its busy stretches (the loop running script code
// between two waits, which happen at the same points on every replay) and
// lets the recorder decide: on a first execution the limits are live and
// each one that fires is recorded with its stretch; on a replay they are
// off, and the recorded limit ends the run as the stretch it fired in
// begins. No stretch issues work to the scheduler before it waits, so
// ending it at its start or in its middle leaves the same trace.
type LimitRecorder interface {
	// Stretch is called on the loop goroutine as busy stretch n (from 1)
	// begins. It returns the limit recorded for this stretch by an earlier
	// execution, which ends the run at once, or nil; live says whether the
	// limits are measured in this stretch (false while a history is
	// replayed: the history decides).
	Stretch(n int) (recorded *wferr.Error, live bool)
	// Fired is called on the loop goroutine when a live limit ended busy
	// stretch n with err, to record it.
	Fired(n int, err *wferr.Error)
}
