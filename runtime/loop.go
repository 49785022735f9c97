package runtime

import (
	"sync"

	"github.com/wfrun/wfrun/sandbox"
)

// loop is the event loop of one run. It owns the run's VM: every callback it
// runs is run on the goroutine that called run, and is handed the VM as its
// argument — the one way host work gets to touch it. Nothing else may touch
// the VM (the one exception is goja's Runtime.Interrupt, which is safe from
// any goroutine).
//
// The invariant everything else depends on: run returns in exactly four
// cases, and in no other —
//
//   - idle: the queue is empty and nothing registered is outstanding, so
//     nothing can ever queue a callback again;
//   - stop: stop was called (from any goroutine), and what was queued is
//     dropped;
//   - done: the done predicate, asked after every callback, reports that
//     the script has settled, so nothing queued matters any more;
//   - error: a callback returned an error, which run returns.
//
// Host work (a child running on another goroutine) is registered with
// register before it starts; the enqueue function register returns must be
// called exactly once, from any goroutine, with the callback that hands the
// outcome back to JavaScript.
type loop struct {
	rt    *sandbox.Runtime // handed to every callback; loop goroutine only
	sched Scheduler        // the loop waits for host work through it
	ready func() bool      // hasWork, bound once: Wait gets it on every wait

	mu          sync.Mutex
	queue       []callback
	outstanding int
	stopped     bool
	wake        chan struct{} // buffered(1): a nudge that the queue changed or stop was called

	// done, if set, is asked after every callback; true ends run (the
	// script has settled, so nothing queued matters any more). Loop goroutine.
	done func() bool

	// busy, if set, is told when the loop starts running callbacks (true)
	// and when it stops — to wait for host work, or for good (false). The
	// heap watchdog watches the stretches in between. Loop goroutine.
	busy func(bool)
}

// callback is work for the loop goroutine. It gets the run's VM.
type callback func(rt *sandbox.Runtime) error

func newLoop(rt *sandbox.Runtime, sched Scheduler) *loop {
	l := &loop{rt: rt, sched: sched, wake: make(chan struct{}, 1)}
	l.ready = l.hasWork
	return l
}

// hasWork reports whether run has something to do besides waiting: a
// callback queued, a stop, or nothing outstanding (idle). It is the
// condition the loop waits on; the default scheduler waits for a nudge
// instead, which comes whenever it may have turned true.
func (l *loop) hasWork() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.queue) > 0 || l.stopped || l.outstanding == 0
}

// register records one piece of outstanding host work and returns the
// function that completes it. Calling enqueue queues fn to run on the loop
// goroutine and releases the registration; calling it twice panics, because
// a second completion would mean a child was paired with two ends. After stop
// the callback is dropped (the run is over), but the registration is still
// released. register is called on the loop goroutine; enqueue on any.
func (l *loop) register() (enqueue func(fn callback)) {
	l.mu.Lock()
	l.outstanding++
	l.mu.Unlock()
	var once sync.Once
	return func(fn callback) {
		called := false
		once.Do(func() {
			called = true
			l.mu.Lock()
			l.outstanding--
			if !l.stopped {
				l.queue = append(l.queue, fn)
			}
			l.mu.Unlock()
			l.nudge()
		})
		if !called {
			panic("runtime: enqueue called twice for one registration")
		}
	}
}

// stop makes run return after the callback it is running, dropping whatever
// is queued. It may be called from any goroutine, any number of times.
func (l *loop) stop() {
	l.mu.Lock()
	l.stopped = true
	l.queue = nil
	l.mu.Unlock()
	l.nudge()
}

func (l *loop) nudge() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// run runs first, then queued callbacks in order, until one of the four
// exits of the loop's invariant: idle, stop and done return nil, a callback
// error is returned. Loop goroutine: the caller of run is the loop goroutine
// for the life of the run.
func (l *loop) run(first callback) error {
	l.setBusy(true)
	defer l.setBusy(false)
	if err := first(l.rt); err != nil {
		return err
	}
	for {
		if l.done != nil && l.done() {
			return nil
		}
		l.mu.Lock()
		if l.stopped {
			l.mu.Unlock()
			return nil
		}
		batch := l.queue
		l.queue = nil
		idle := len(batch) == 0 && l.outstanding == 0
		l.mu.Unlock()
		if idle {
			return nil
		}
		if len(batch) == 0 {
			l.setBusy(false)
			l.sched.Wait(l.ready, l.wake)
			l.setBusy(true)
			continue
		}
		for _, fn := range batch {
			if err := fn(l.rt); err != nil {
				return err
			}
			if l.isStopped() || (l.done != nil && l.done()) {
				return nil
			}
		}
	}
}

func (l *loop) setBusy(b bool) {
	if l.busy != nil {
		l.busy(b)
	}
}

func (l *loop) isStopped() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stopped
}
