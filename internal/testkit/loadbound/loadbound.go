package loadbound

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// sampleEvery is how often a Timer reads the machine's runnable tasks.
const sampleEvery = 50 * time.Millisecond

// Timer measures one span of work; see the package doc.
type Timer struct {
	start time.Time
	cpu0  time.Duration
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once

	mu      sync.Mutex
	sum     float64 // runnable tasks per CPU, summed over samples
	samples int
	taken   Taken
}

// Taken is what a Timer measured.
type Taken struct {
	Wall time.Duration
	// CPU is the process's user and system time, with its waited-for
	// children's, over the span.
	CPU time.Duration
	// Load is the mean number of runnable tasks per CPU over the span,
	// never below 1.
	Load float64
}

// Start starts a Timer. Its sampling goroutine ends at Stop, or when t
// ends.
func Start(t testing.TB) *Timer {
	w := &Timer{start: time.Now(), cpu0: cpuTime(), stop: make(chan struct{}), done: make(chan struct{})}
	w.sample()
	go w.loop()
	t.Cleanup(func() { w.Stop() })
	return w
}

func (w *Timer) loop() {
	defer close(w.done)
	tick := time.NewTicker(sampleEvery)
	defer tick.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-tick.C:
			w.sample()
		}
	}
}

func (w *Timer) sample() {
	n, ok := runnable()
	if !ok {
		return
	}
	w.mu.Lock()
	w.sum += n / float64(runtime.NumCPU())
	w.samples++
	w.mu.Unlock()
}

// Stop ends the span and returns what was measured; later calls return
// the same.
func (w *Timer) Stop() Taken {
	w.once.Do(func() {
		wall, cpu := time.Since(w.start), cpuTime()-w.cpu0
		close(w.stop)
		<-w.done
		w.sample()
		w.mu.Lock()
		load := 1.0
		if w.samples > 0 {
			load = max(1, w.sum/float64(w.samples))
		}
		w.taken = Taken{Wall: wall, CPU: cpu, Load: load}
		w.mu.Unlock()
	})
	return w.taken
}

// Bound returns bound stretched by the load.
func (m Taken) Bound(bound time.Duration) time.Duration {
	return time.Duration(float64(bound) * m.Load)
}

// Over reports whether the wall time passed bound stretched by the load.
func (m Taken) Over(bound time.Duration) bool { return m.Wall > m.Bound(bound) }

// String says what was measured, for a test's failure message.
func (m Taken) String() string {
	return fmt.Sprintf("%v (%v of CPU, the machine %.1f× loaded)", m.Wall.Round(time.Millisecond), m.CPU.Round(time.Millisecond), m.Load)
}

// runnable returns how many tasks the machine has runnable now: the
// fourth field of /proc/loadavg ("5/172"), less the one reading it.
func runnable() (float64, bool) {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	fields := strings.Fields(string(data))
	if len(fields) < 4 {
		return 0, false
	}
	running, _, ok := strings.Cut(fields[3], "/")
	n, err := strconv.Atoi(running)
	if !ok || err != nil {
		return 0, false
	}
	return float64(max(n-1, 0)), true
}

// cpuTime is the user and system time of the process and of its
// waited-for children so far.
func cpuTime() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return total
}
