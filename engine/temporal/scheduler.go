package temporal

import (
	"context"
	"strconv"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/wfrun/wfrun/internal/wferr"
	"github.com/wfrun/wfrun/runtime"
)

// scheduler is the runtime.Scheduler of a run inside a Temporal workflow.
// Everything the run does concurrently becomes a workflow coroutine, every
// wait a workflow condition, every timer a workflow timer and the clock the
// workflow's, so that the run takes the same steps each time Temporal
// replays the workflow from its history: the order in which children end
// is the order their activities completed in the history, never goroutine
// timing.
//
// Coroutines run one at a time and switch only where they block, and
// workflow.Await asks its condition again after any coroutine has made
// progress; so a condition over plain Go state (a queue under a mutex, a
// context's Err) is seen as soon as a coroutine changes it. That is why the
// run's Go contexts can stay Go contexts: cancelling one is synchronous and
// happens on a coroutine.
//
// All coroutines start from detached, a context the workflow's own
// cancellation does not reach: the run hears of that cancellation through
// its run context (Workflow watches it) and winds down in order, which a
// cancelled workflow context would cut short.
type scheduler struct {
	root     workflow.Context // the workflow function's: the loop goroutine's coroutine
	detached workflow.Context // root without its cancellation

	// current is the workflow context of the coroutine Go started that is
	// running now, which a provider call blocks on (block). Coroutines run
	// one at a time, so one field can say which: each coroutine of Go sets
	// it when it starts, and block sets it back after every wait, the only
	// place such a coroutine yields.
	current workflow.Context
}

func newScheduler(root workflow.Context) *scheduler {
	detached, _ := workflow.NewDisconnectedContext(root)
	return &scheduler{root: root, detached: detached}
}

var _ runtime.Scheduler = (*scheduler)(nil)

func (s *scheduler) Go(fn func()) {
	workflow.Go(s.detached, func(wc workflow.Context) {
		s.current = wc
		fn()
	})
}

// block waits, on the coroutine of Go that calls it, until ready reports
// true, and returns that coroutine's workflow context (for a future's Get).
func (s *scheduler) block(ready func() bool) workflow.Context {
	wc := s.current
	_ = workflow.Await(wc, ready)
	s.current = wc
	return wc
}

// Wait is called on the loop goroutine, which is the workflow function's
// coroutine, so it waits on detached (root's coroutine, without its
// cancellation: a cancelled workflow must not turn every wait into a spin).
func (s *scheduler) Wait(ready func() bool, _ <-chan struct{}) {
	_ = workflow.Await(s.detached, ready)
}

func (s *scheduler) Now() time.Time { return workflow.Now(s.root) }

func (s *scheduler) WithTimeout(ctx context.Context, d time.Duration, cause error) (context.Context, context.CancelFunc) {
	cctx, cancel := context.WithCancelCause(ctx)
	workflow.Go(s.detached, func(wc workflow.Context) {
		tctx, stopTimer := workflow.WithCancel(wc)
		timer := workflow.NewTimer(tctx, d)
		_ = workflow.Await(wc, func() bool { return timer.IsReady() || cctx.Err() != nil })
		if cctx.Err() != nil {
			stopTimer() // never sent when it starts and stops in one workflow task
			return
		}
		cancel(cause)
	})
	return cctx, func() { cancel(context.Canceled) }
}

// afterCall is one AfterFunc or AfterTime: f runs once, unless stop
// comes first. Coroutines run one at a time, so plain fields do.
type afterCall struct{ stopped, ran bool }

// stop is what AfterFunc and AfterTime return: true if it kept f from
// running.
func (a *afterCall) stop() bool {
	if a.stopped || a.ran {
		return false
	}
	a.stopped = true
	return true
}

func (s *scheduler) AfterFunc(ctx context.Context, f func()) func() bool {
	a := &afterCall{}
	workflow.Go(s.detached, func(wc workflow.Context) {
		_ = workflow.Await(wc, func() bool { return a.stopped || ctx.Err() != nil })
		if !a.stopped {
			a.ran = true
			f()
		}
	})
	return a.stop
}

func (s *scheduler) AfterTime(d time.Duration, f func()) func() bool {
	a := &afterCall{}
	workflow.Go(s.detached, func(wc workflow.Context) {
		tctx, stopTimer := workflow.WithCancel(wc)
		timer := workflow.NewTimer(tctx, d)
		_ = workflow.Await(wc, func() bool { return a.stopped || timer.IsReady() })
		if a.stopped {
			stopTimer()
			return
		}
		a.ran = true
		f()
	})
	return a.stop
}

// The limits that measure a worker (the busy limit, the heap watchdog, the
// regexp timeout) are decided once, on the execution that first runs a
// stretch of script, and kept in the history: a limit that fires records a
// version marker named after its stretch, and its error in a side effect.
// A replay measures nothing: before each stretch it asks whether the
// history has that stretch's marker (GetVersion answers from the markers
// of the workflow task being replayed, and adds nothing when there is
// none), and if so ends the run with the recorded error where the first
// execution did. So a limit costs history only when it fires, and a replay
// on a faster or slower worker takes the same steps.
var _ runtime.LimitRecorder = (*scheduler)(nil)

// limitChange is the change id of the marker of a limit that ended stretch n.
func limitChange(n int) string { return "wfrun.limit." + strconv.Itoa(n) }

func (s *scheduler) Stretch(n int) (*wferr.Error, bool) {
	if !workflow.IsReplaying(s.root) {
		return nil, true
	}
	if workflow.GetVersion(s.detached, limitChange(n), workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return nil, false
	}
	return s.recordLimit(nil), false
}

func (s *scheduler) Fired(n int, err *wferr.Error) {
	workflow.GetVersion(s.detached, limitChange(n), workflow.DefaultVersion, 1)
	s.recordLimit(err)
}

// recordLimit records err in a side effect, or reads it back on a replay.
func (s *scheduler) recordLimit(err *wferr.Error) *wferr.Error {
	var w wireError
	v := workflow.SideEffect(s.detached, func(workflow.Context) any { return toWire(err) })
	if e := v.Get(&w); e != nil {
		return wferr.Wrap(wferr.Internal, e, "wfrun bug: the limit recorded in the history cannot be read: %v", e)
	}
	return w.err()
}
