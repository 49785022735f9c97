package runtime

import (
	"context"
	"time"
)

// Scheduler is where a run's host side lives: how work runs beside the
// loop goroutine, how the loop goroutine waits for it, and the clock and
// timers of both. Each method is the twin of a Go primitive — the go
// statement, a channel receive, time.Now, context.WithTimeoutCause,
// context.AfterFunc, time.AfterFunc — and the run uses nothing else for
// concurrency, waiting or time (the heap watchdog aside, see memory.go), so
// that a scheduler which is not Go's can replace all of them at once.
//
// The default (Config.Scheduler nil) is Go's own: goroutines, the loop's
// channel and the process clock. A durable workflow engine supplies
// another (engine/temporal: coroutines, conditions and timers replayed from
// a history), and the run then behaves the same, step for step, every time
// it is replayed: nothing the script can observe depends on goroutine
// timing or the wall clock.
//
// A Scheduler's methods are called from the run's loop goroutine and from
// the functions it started with Go, AfterFunc and AfterTime, never from
// anywhere else (the heap watchdog only interrupts the VM and cancels Go
// contexts, which any goroutine may do).
type Scheduler interface {
	// Go runs fn on the host side, concurrently with the loop goroutine.
	Go(fn func())
	// Wait blocks the loop goroutine until ready may have become true: it
	// may return early (the caller checks again), and it returns no later
	// than ready turns true, given that whoever makes it true then sends on
	// wake without blocking (a buffered nudge). The caller has just seen
	// ready false.
	Wait(ready func() bool, wake <-chan struct{})
	// Now is the time on the run's clock: of its events and durations.
	Now() time.Time
	// WithTimeout is context.WithTimeoutCause on the run's clock.
	WithTimeout(ctx context.Context, d time.Duration, cause error) (context.Context, context.CancelFunc)
	// AfterFunc is context.AfterFunc: f runs on the host side once ctx is
	// done, unless stop is called first (stop reports whether it stopped f).
	AfterFunc(ctx context.Context, f func()) (stop func() bool)
	// AfterTime is time.AfterFunc on the run's clock: f runs on the host
	// side once d has passed, unless stop is called first (stop reports
	// whether it stopped f).
	AfterTime(d time.Duration, f func()) (stop func() bool)
}

// goScheduler is the default Scheduler: Go's goroutines, channels and
// process clock, exactly what the run used before there was a seam.
type goScheduler struct{}

func (goScheduler) Go(fn func()) { go fn() }

// Wait receives one nudge: the caller checks ready again, as a
// condition variable's caller would.
func (goScheduler) Wait(_ func() bool, wake <-chan struct{}) { <-wake }

func (goScheduler) Now() time.Time { return time.Now() }

func (goScheduler) WithTimeout(ctx context.Context, d time.Duration, cause error) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, d, cause)
}

func (goScheduler) AfterFunc(ctx context.Context, f func()) func() bool {
	return context.AfterFunc(ctx, f)
}

func (goScheduler) AfterTime(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}
