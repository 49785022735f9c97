package runtime

import (
	stdruntime "runtime"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/wfrun/wfrun/internal/human"
	"github.com/wfrun/wfrun/internal/wferr"
)

// The heap watchdog. goja cannot count what a run allocates, and the
// builtins that allocate by argument are checked in package sandbox; what
// is left — `s += s` in a loop, pushing into an array forever — grows the
// heap step by step while the script runs without a pause. So while a run's
// loop is busy (running script code, not waiting for a child), a timer
// samples the process's heap every watchInterval; when the heap has grown
// by more than the run's memory budget since the busy stretch began, the
// watchdog collects garbage once and measures again, so that garbage (the
// run's own, or other runs') never counts, and ends the run with
// RESOURCE_LIMIT if the live heap still grew past the budget.
//
// It sees growth within one busy stretch: memory a run keeps across many
// short stretches (growing a little between every await) is bounded by the
// run's caps instead. Several runs busy at the same moment share the growth
// they cause together. Process isolation (a VM in a child process with an
// OS memory limit) is exact; this is the in-process approximation.
//
// With Config.MaxBusy the same ticks also bound how long one busy stretch
// may last: a scheduler whose loop must answer in time (a Temporal
// workflow task) stops a script that computes past it. Both limits read
// the process, not the run's clock; they end a run rather than steer it.

// watchInterval is how often a busy run's heap growth is sampled.
const watchInterval = 10 * time.Millisecond

// heapMetric is the heap memory occupied by objects, live or not yet swept.
const heapMetric = "/memory/classes/heap/objects:bytes"

// heapWatch watches one run. start and stop are called on the loop
// goroutine; tick runs on the timer's goroutine.
type heapWatch struct {
	r       *run
	budget  uint64
	maxBusy time.Duration // 0: busy stretches may be as long as they like

	mu     sync.Mutex
	timer  *time.Timer // created on the first start
	busy   bool
	base   uint64    // the heap when this busy stretch was first sampled; 0: not yet
	since  time.Time // when this busy stretch began (with maxBusy only)
	sample [1]metrics.Sample
	off    bool         // a LimitRecorder turned the watch off (a replay)
	fired  *wferr.Error // the limit this watch ended the run with
}

func newHeapWatch(r *run, budget int64, maxBusy time.Duration) *heapWatch {
	w := &heapWatch{r: r, budget: uint64(budget), maxBusy: maxBusy}
	w.sample[0].Name = heapMetric
	return w
}

// start begins a busy stretch. Loop goroutine.
func (w *heapWatch) start() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.busy, w.base = true, 0
	if w.off {
		return
	}
	if w.maxBusy > 0 {
		w.since = time.Now() // the wall clock on purpose: this bounds real time on a worker
	}
	if w.timer == nil {
		w.timer = time.AfterFunc(watchInterval, w.tick)
		return
	}
	w.timer.Reset(watchInterval)
}

// setLive turns the watch on or off for the stretches that follow (a
// LimitRecorder's replay has the history decide). Loop goroutine.
func (w *heapWatch) setLive(live bool) {
	w.mu.Lock()
	w.off = !live
	w.mu.Unlock()
}

// firedError is the limit the watch ended the run with, or nil.
func (w *heapWatch) firedError() *wferr.Error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fired
}

// failWith records err as the watch's and ends the run with it. Timer
// goroutine.
func (w *heapWatch) failWith(err *wferr.Error) {
	w.mu.Lock()
	if w.fired == nil {
		w.fired = err
	}
	w.mu.Unlock()
	w.r.fail(err)
}

// stop ends a busy stretch. Loop goroutine.
func (w *heapWatch) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.busy = false
	if w.timer != nil {
		w.timer.Stop()
	}
}

// heap reads the heap metric. The caller holds w.mu.
func (w *heapWatch) heap() uint64 {
	metrics.Read(w.sample[:])
	return w.sample[0].Value.Uint64()
}

// tick samples the heap of a busy run. Timer goroutine.
func (w *heapWatch) tick() {
	w.mu.Lock()
	if !w.busy || w.off {
		w.mu.Unlock()
		return
	}
	h := w.heap()
	if w.base == 0 || h < w.base {
		w.base = h
	}
	over := h-w.base > w.budget
	busyFor := time.Duration(0)
	if w.maxBusy > 0 {
		busyFor = time.Since(w.since)
	}
	w.mu.Unlock()

	if busyFor > w.maxBusy {
		w.failWith(wferr.New(wferr.ResourceLimit,
			"the script ran for %s without awaiting an agent; this run allows %s at a stretch, because its scheduler must hear back from the script in time: hand heavy computation to an agent, or work on less data per step",
			busyFor.Round(time.Millisecond), w.maxBusy))
		return
	}

	if over {
		// Garbage must not count: measure the live heap.
		stdruntime.GC()
		w.mu.Lock()
		live := w.heap()
		grown := live > w.base && live-w.base > w.budget
		if !grown && live < w.base {
			w.base = live // later growth is measured from what is really live
		}
		base, busy := w.base, w.busy
		w.mu.Unlock()
		if grown && busy {
			w.failWith(wferr.New(wferr.ResourceLimit,
				"the script grew the memory it holds by %s while running without a pause (the heap went from %s to %s); the run's memory limit is %s (--max-memory, maxMemoryBytes): keep less data in the script, or hand large work to agents",
				human.Bytes(int64(live-base)), human.Bytes(int64(base)), human.Bytes(int64(live)), human.Bytes(int64(w.budget))))
			return
		}
	}
	w.mu.Lock()
	if w.busy {
		w.timer.Reset(watchInterval)
	}
	w.mu.Unlock()
}

// close stops the timer for good. Loop goroutine, when the run ends.
func (w *heapWatch) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.busy = false
	if w.timer != nil {
		w.timer.Stop()
	}
}
