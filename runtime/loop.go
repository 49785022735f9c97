package runtime

import (
	"sync"
)

// loop is the event loop of one run. It owns the goja VM: every function it
// runs is run on the goroutine that called run, and nothing else may touch
// the VM (the one exception is goja's Runtime.Interrupt, which is safe from
// any goroutine).
//
// The invariant everything else depends on: run returns only when the queue
// is empty and nothing registered is still outstanding, or when stop was
// called. Host work (a child running on another goroutine) is registered with
// register before it starts; the enqueue function register returns must be
// called exactly once, from any goroutine, with the callback that hands the
// outcome back to JavaScript.
type loop struct {
	mu          sync.Mutex
	queue       []func() error
	outstanding int
	stopped     bool
	wake        chan struct{} // buffered(1): a nudge that the queue changed or stop was called

	// done, if set, is asked after every callback; true ends run (the
	// script has settled, so nothing queued matters any more). Loop goroutine.
	done func() bool
}

func newLoop() *loop {
	return &loop{wake: make(chan struct{}, 1)}
}

// register records one piece of outstanding host work and returns the
// function that completes it. Calling enqueue queues fn to run on the loop
// goroutine and releases the registration; calling it twice panics, because
// a second completion would mean a child was paired with two ends. After stop
// the callback is dropped (the run is over), but the registration is still
// released. register is called on the loop goroutine.
func (l *loop) register() (enqueue func(fn func() error)) {
	l.mu.Lock()
	l.outstanding++
	l.mu.Unlock()
	var once sync.Once
	return func(fn func() error) {
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

// run runs queued callbacks in order until the queue is empty and nothing is
// outstanding (it returns nil: the loop is idle for good), until stop is called
// or done reports true (nil), or until a callback returns an error (that
// error). first is run before anything queued.
func (l *loop) run(first func() error) error {
	if err := first(); err != nil {
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
			<-l.wake
			continue
		}
		for _, fn := range batch {
			if err := fn(); err != nil {
				return err
			}
			if l.isStopped() || (l.done != nil && l.done()) {
				return nil
			}
		}
	}
}

func (l *loop) isStopped() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stopped
}
