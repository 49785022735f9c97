package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/internal/testkit/loadbound"
	"github.com/wfrun/wfrun/internal/wferr"
	. "github.com/wfrun/wfrun/runtime"
)

func TestCancel_BeforeTheBodyRuns(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(CancelledError("changed my mind"))
	p := newBlocking()
	out, rec := run(t, harness{ctx: ctx}, `await agent('x'); return 1`, withProvider(p))
	wantCode(t, out, wferr.Cancelled, "changed my mind")
	if out.AgentsSpawned != 0 || len(rec.Events()) != 0 {
		t.Fatalf("spawned %d events %v", out.AgentsSpawned, rec.Events())
	}
}

func TestCancel_WhileChildrenRunCancelsEveryContext(t *testing.T) {
	p := newBlocking()
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan struct{})
	var out Outcome
	go func() {
		defer close(done)
		out, _ = run(t, harness{ctx: ctx}, `return await Promise.all(Array.from({length: 6}, (_, i) => agent('t' + i)))`,
			withProvider(p), func(c *Config) { c.Concurrency = 4 })
	}()
	for i := 0; i < 4; i++ {
		<-p.startedC
	}
	cancel(CancelledError("user pressed ctrl-c"))
	<-done
	wantCode(t, out, wferr.Cancelled, "ctrl-c")
	if got := p.ctxDone.Load(); got != 4 {
		t.Fatalf("%d in-flight contexts cancelled, want 4", got)
	}
	if len(p.started) != 4 {
		t.Fatalf("%d children started; queued ones must not start after cancel", len(p.started))
	}
	// The cancel may interrupt the script before it made all six calls;
	// every accepted call is counted as cancelled, started or not.
	if out.Agents.Cancelled != out.AgentsSpawned || out.AgentsSpawned < 4 {
		t.Fatalf("counts %+v spawned %d", out.Agents, out.AgentsSpawned)
	}
}

func TestCancel_RacingAChildStartSettlesCancelled(t *testing.T) {
	for i := 0; i < 50; i++ {
		var starts atomic.Int32
		p := &funcProvider{name: "quick", caps: agentapi.All(), run: func(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
			starts.Add(1)
			<-ctx.Done()
			return agentapi.Result{Status: agentapi.StatusCancelled, Error: "cancelled"}, nil
		}}
		ctx, cancel := context.WithCancelCause(context.Background())
		go func() {
			time.Sleep(time.Duration(i%5) * 50 * time.Microsecond)
			cancel(CancelledError("race"))
		}()
		out, rec := run(t, harness{ctx: ctx}, `await Promise.all([agent('a'), agent('b'), agent('c')]); return 1`, withProvider(p),
			func(c *Config) { c.Concurrency = 1 })
		wantCode(t, out, wferr.Cancelled, "")
		if n := len(rec.Of(EventAgentStart)); int(starts.Load()) != n || n > 1 {
			t.Fatalf("iteration %d: provider saw %d starts, events %d", i, starts.Load(), n)
		}
	}
}

func TestCancel_UnawaitedChildrenAreCancelledWhenScriptSettles(t *testing.T) {
	p := newBlocking()
	out, rec := runScript(t, `agent('forgotten'); agent('also forgotten'); return 'early'`, withProvider(p))
	wantValue(t, out, `"early"`)
	if out.Agents.Cancelled != 2 || out.AgentsSpawned != 2 {
		t.Fatalf("counts %+v", out.Agents)
	}
	if s, e := len(rec.Of(EventAgentStart)), len(rec.Of(EventAgentEnd)); s != e {
		t.Fatalf("%d agent.start, %d agent.end", s, e)
	}
}

func TestCancel_ProviderIgnoringCancellationCannotHoldTheRunOpen(t *testing.T) {
	release, started := make(chan struct{}), make(chan struct{})
	p := &funcProvider{name: "deaf", caps: agentapi.All(), run: func(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
		close(started)
		<-release // ignores ctx
		return agentapi.Result{Status: agentapi.StatusCompleted, Text: "late"}, nil
	}}
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() { <-started; cancel(CancelledError("stop")) }()
	timer := loadbound.Start(t)
	out, rec := run(t, harness{ctx: ctx, leaveDraining: true}, `return await agent('x')`,
		withProvider(p), func(c *Config) { c.CancelGrace = 100 * time.Millisecond })
	if took := timer.Stop(); took.Over(3 * time.Second) {
		t.Fatalf("run took %v", took)
	}
	wantCode(t, out, wferr.Cancelled, "")
	ends := rec.Of(EventAgentEnd)
	if len(ends) != 1 || ends[0].Outcome != agentapi.StatusCancelled {
		t.Fatalf("agent.end %+v", ends)
	}
	select {
	case <-out.Drained:
		t.Fatal("drained while the provider is still blocked")
	default:
	}
	close(release) // the late result arrives and is dropped
	<-out.Drained
	if n := len(rec.Of(EventAgentEnd)); n != 1 {
		t.Fatalf("late result produced %d agent.end", n)
	}
}

func TestCancel_AgentTimeoutWithDeafProviderEndsTimedOut(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	p := &funcProvider{name: "deaf", caps: agentapi.All(), run: func(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
		<-release
		return agentapi.Result{Status: agentapi.StatusCompleted, Text: "late"}, nil
	}}
	out, _ := run(t, harness{leaveDraining: true}, `return await agent('x', {timeoutMs: 20})`, withProvider(p), func(c *Config) { c.CancelGrace = 50 * time.Millisecond })
	wantValue(t, out, `null`)
	if out.Agents.TimedOut != 1 {
		t.Fatalf("counts %+v", out.Agents)
	}
}

func TestCancel_AbandonedChildGivesUpItsSlotAtOnce(t *testing.T) {
	// With one slot, a child whose provider ignores its timeout must not
	// hold the slot until the provider returns: the next child runs as soon
	// as the first is ended.
	release := make(chan struct{})
	p := &funcProvider{name: "deaf", caps: agentapi.All(), run: func(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
		if req.Prompt == "a" {
			<-release // ignores ctx until the test ends
		}
		return agentapi.Result{Status: agentapi.StatusCompleted, Text: "done " + req.Prompt}, nil
	}}
	done := make(chan Outcome, 1)
	go func() {
		out, _ := run(t, harness{leaveDraining: true}, `const a = await agent('a', {timeoutMs: 20}); return [a, await agent('b')]`,
			withProvider(p), func(c *Config) { c.Concurrency = 1; c.CancelGrace = 20 * time.Millisecond })
		done <- out
	}()
	var out Outcome
	select {
	case out = <-done:
	case <-time.After(10 * time.Second):
		close(release)
		t.Fatal("the second child waited for the abandoned provider to return")
	}
	close(release)
	<-out.Drained
	wantValue(t, out, `[null, "done b"]`)
}

func TestCauseError_NamesTheCodeTheContextsCauseStandsFor(t *testing.T) {
	cases := []struct {
		name  string
		cause error
		code  wferr.Code
	}{
		{"a wfrun error as it is", wferr.New(wferr.ResourceLimit, "x"), wferr.ResourceLimit},
		{"a passed deadline", context.DeadlineExceeded, wferr.Timeout},
		{"a wrapped deadline", fmt.Errorf("outer: %w", context.DeadlineExceeded), wferr.Timeout},
		{"a plain cancel", context.Canceled, wferr.Cancelled},
		{"any other cause", errors.New("shutting down"), wferr.Cancelled},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(c.cause)
			if got := CauseError(ctx); got.Code != c.code {
				t.Fatalf("CauseError = %v, want %s", got, c.code)
			}
		})
	}
}
