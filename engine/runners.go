package engine

import (
	"sync"
	"sync/atomic"
	"time"
)

// runners lends each run's loop a goroutine. A goroutine that has run a
// VM has a stack goja grew for it; growing a fresh goroutine's stack again
// (runtime.newstack copying it, frame after frame) was a sixth of a
// trivial run's CPU. So a goroutine whose run has settled waits a moment
// for the next run instead of exiting: at most maxIdleRunners of them,
// each for at most runnerIdle, and none once the engine has closed.
//
// A run never waits for a runner: with none idle, Go starts a new
// goroutine at once.
type runners struct {
	work     chan func()   // unbuffered: a send succeeds only while a runner waits
	idle     atomic.Int32  // runners waiting in work's receive, or about to
	stop     chan struct{} // closed by close
	stopOnce sync.Once
	wg       sync.WaitGroup // every runner, for close
	idleFor  time.Duration  // how long a runner waits for work: runnerIdle
}

const (
	maxIdleRunners = 16
	runnerIdle     = 2 * time.Second
)

func newRunners() *runners {
	return &runners{work: make(chan func()), stop: make(chan struct{}), idleFor: runnerIdle}
}

// run calls f on an idle runner, or on a new one.
func (p *runners) run(f func()) {
	select {
	case p.work <- f:
		return
	default:
	}
	p.wg.Add(1)
	go p.loop(f)
}

// loop is one runner: f, then the next work until it has waited
// idleFor for one, too many runners wait already, or the pool closes.
func (p *runners) loop(f func()) {
	defer p.wg.Done()
	var t *time.Timer
	for {
		f()
		if p.idle.Add(1) > maxIdleRunners {
			p.idle.Add(-1)
			return
		}
		if t == nil {
			t = time.NewTimer(p.idleFor)
		} else {
			t.Reset(p.idleFor)
		}
		select {
		case f = <-p.work:
			p.idle.Add(-1)
			t.Stop()
		case <-t.C:
			p.idle.Add(-1)
			return
		case <-p.stop:
			p.idle.Add(-1)
			t.Stop()
			return
		}
	}
}

// close ends the idle runners and waits for every runner to return; the
// caller has made sure that no run is going, or will start.
func (p *runners) close() {
	p.stopOnce.Do(func() { close(p.stop) })
	p.wg.Wait()
}
