package interrupt_test

import (
	"os"
	"slices"
	"syscall"
	"testing"

	"github.com/wfrun/wfrun/internal/interrupt"
	"github.com/wfrun/wfrun/internal/testkit/leaktest"
)

func TestMain(m *testing.M) {
	leaktest.VerifyTestMain(m)
}

func TestWait(t *testing.T) {
	for _, c := range []struct {
		name        string
		signals     []os.Signal
		deliver     bool // done delivers after the signals
		stops       int
		interrupted os.Signal
		abandoned   os.Signal
	}{
		{name: "done, no signal", deliver: true},
		{name: "one signal stops, then done", signals: []os.Signal{os.Interrupt}, deliver: true, stops: 1, interrupted: os.Interrupt},
		{name: "a second signal gives up", signals: []os.Signal{syscall.SIGTERM, os.Interrupt}, stops: 1, interrupted: syscall.SIGTERM, abandoned: os.Interrupt},
	} {
		t.Run(c.name, func(t *testing.T) {
			done := make(chan int, 1)
			sigs := make(chan os.Signal, len(c.signals))
			var stopped []os.Signal
			for _, s := range c.signals {
				sigs <- s
			}
			stop := func(s os.Signal) {
				stopped = append(stopped, s)
				if c.deliver {
					done <- 7 // what was stopped settles
				}
			}
			if len(c.signals) == 0 {
				done <- 7
			}
			out := interrupt.Wait(done, sigs, stop)
			if len(stopped) != c.stops || out.Interrupted != c.interrupted || out.Abandoned != c.abandoned {
				t.Errorf("stops %v, outcome %+v; want %d stops, interrupted %v, abandoned %v", stopped, out, c.stops, c.interrupted, c.abandoned)
			}
			if want := 0; c.deliver && out.Value != 7 || !c.deliver && out.Value != want {
				t.Errorf("value %d", out.Value)
			}
			if c.stops > 0 && !slices.Equal(stopped, c.signals[:1]) {
				t.Errorf("stop got %v, want the first signal", stopped)
			}
		})
	}
}

func TestGoDeliversAndEndsUnreceived(t *testing.T) {
	if v := <-interrupt.Go(func() string { return "x" }); v != "x" {
		t.Errorf("Go delivered %q", v)
	}
	release := make(chan struct{})
	_ = interrupt.Go(func() int { <-release; return 1 }) // nobody receives: the goroutine must still end
	close(release)
}

func TestName(t *testing.T) {
	for sig, want := range map[os.Signal]string{os.Interrupt: "SIGINT", syscall.SIGTERM: "SIGTERM", syscall.SIGHUP: "hangup"} {
		if got := interrupt.Name(sig); got != want {
			t.Errorf("Name(%v) = %q, want %q", sig, got, want)
		}
	}
}

func TestContext(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	ctx, cancel := interrupt.Context(sigs)
	defer cancel()
	if ctx.Err() != nil {
		t.Fatal("the context is done before any signal")
	}
	sigs <- os.Interrupt
	<-ctx.Done() // the signal cancels it

	// Without a signal, cancel ends the goroutine (leaktest checks).
	_, cancel2 := interrupt.Context(nil)
	cancel2()
}
