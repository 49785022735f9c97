package engine

import (
	"bytes"
	"runtime"
	"sync"
	"testing"
	"time"
)

// goroutineID is the number runtime.Stack prints for the calling goroutine.
func goroutineID() string {
	buf := make([]byte, 64)
	buf = buf[:runtime.Stack(buf, false)]
	id, _, _ := bytes.Cut(bytes.TrimPrefix(buf, []byte("goroutine ")), []byte(" "))
	return string(id)
}

func TestRunners_ASettledRunsGoroutineRunsTheNext(t *testing.T) {
	p := newRunners()
	defer p.close()
	ids := make(chan string, 1)
	p.run(func() { ids <- goroutineID() })
	first := <-ids
	// The first runner is idle once its idle count shows; then the next
	// work goes to it.
	for p.idle.Load() != 1 {
		time.Sleep(time.Millisecond)
	}
	p.run(func() { ids <- goroutineID() })
	if second := <-ids; second != first {
		t.Fatalf("the second work ran on goroutine %s, not on the idle runner %s", second, first)
	}
}

func TestRunners_AtMostMaxIdleWaitAndCloseEndsThem(t *testing.T) {
	p := newRunners()
	release := make(chan struct{})
	var started sync.WaitGroup
	const n = maxIdleRunners + 8
	started.Add(n)
	for range n {
		p.run(func() {
			started.Done()
			<-release
		})
	}
	started.Wait() // n runners, all busy: none was idle to take the work
	close(release)
	deadline := time.Now().Add(5 * time.Second)
	for p.idle.Load() != maxIdleRunners && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if got := p.idle.Load(); got != maxIdleRunners {
		t.Fatalf("%d idle runners, want %d", got, maxIdleRunners)
	}
	p.close() // goleak (TestMain) fails the package if one is left
	if got := p.idle.Load(); got != 0 {
		t.Fatalf("%d idle runners after close", got)
	}
}

func TestRunners_AnIdleRunnerExitsAfterItsWait(t *testing.T) {
	p := newRunners()
	p.idleFor = 10 * time.Millisecond
	done := make(chan struct{})
	p.run(func() { close(done) })
	<-done
	exited := make(chan struct{})
	go func() {
		p.wg.Wait() // not close: the runner must leave on its own
		close(exited)
	}()
	select {
	case <-exited:
	case <-time.After(30 * time.Second): // generous: a loaded machine is slow, a runner that never leaves is not
		t.Fatal("an idle runner was still waiting 30 s after its 10 ms wait")
	}
	p.close()
}
