package temporal_test

import (
	"context"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/wfrun/wfrun/engine"
	wftemporal "github.com/wfrun/wfrun/engine/temporal"
)

func TestEndToEnd_ListRunsFiltersOnTheServerNotAmongTheNewest(t *testing.T) {
	cl := newCluster(t)
	p := newBlocking()
	cl.worker(p)
	c := cl.client()
	owner := "filter-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	start := func(name, body string) *wftemporal.Run {
		t.Helper()
		run, err := c.Start(context.Background(), engine.WorkflowStartRequest{Parent: owner,
			Script: "export const meta = {name: '" + name + "', description: 'x'}\n" + body})
		if err != nil {
			t.Fatal(err)
		}
		return run
	}
	wait := func(run *wftemporal.Run) {
		t.Helper()
		if _, err := run.Wait(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
	}
	// The oldest run is the one asked for: a filter applied to the newest
	// runs only would miss it.
	alpha := start("alpha", "return 1")
	wait(alpha)
	failed := start("beta", "throw new Error('no')")
	wait(failed)
	wait(start("beta", "return 2"))
	// A run that Temporal ended while its status still said running.
	held := start("gamma", "return await agent('hold')")
	select {
	case <-p.started:
	case <-time.After(30 * time.Second):
		t.Fatal("the agent did not start")
	}
	if err := cl.c.TerminateWorkflow(context.Background(), held.ID(), "", "test"); err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		f    wftemporal.RunFilter
		want string // the run id listed, alone
	}{
		{wftemporal.RunFilter{Name: "alpha", Limit: 1}, alpha.ID()},
		{wftemporal.RunFilter{Status: "error", Limit: 1}, failed.ID()},
		{wftemporal.RunFilter{Name: "beta", Status: "error"}, failed.ID()},
		{wftemporal.RunFilter{Status: "terminated", Limit: 1}, held.ID()},
	}
	for _, tc := range cases {
		tc.f.Parent = owner
		deadline := time.Now().Add(20 * time.Second) // the visibility store lags
		for {
			runs, err := wftemporal.ListRuns(context.Background(), cl.c, tc.f)
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) == 1 && runs[0].RunID == tc.want {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%+v: runs %+v, want %s alone", tc.f, runs, tc.want)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	// ListRunsAt dials for itself.
	runs, err := wftemporal.ListRunsAt(wftemporal.Connection{Address: server.hostPort}, wftemporal.RunFilter{Parent: owner, Status: "running"})
	if err != nil || len(runs) != 0 {
		t.Fatalf("running: %+v %v", runs, err)
	}
}

func TestEndToEnd_FollowCancelsOnTheFirstInterruptAndGivesUpOnTheSecond(t *testing.T) {
	cl := newCluster(t)
	p := newBlocking()
	cl.worker(p)
	c := cl.client()
	script := "export const meta = {name: 'follow', description: 'x'}\nreturn await agent('hold')"
	for _, twice := range []bool{false, true} {
		run, err := c.Start(context.Background(), engine.WorkflowStartRequest{Parent: "e2e", Script: script})
		if err != nil {
			t.Fatal(err)
		}
		interrupts := make(chan os.Signal, 2)
		events := make(chan engine.Event, 1024)
		type followed struct{ f wftemporal.Followed }
		done := make(chan followed, 1)
		go func() {
			done <- followed{run.Follow(context.Background(), func(ev engine.Event) { events <- ev }, interrupts, func(err error) { t.Errorf("cancel: %v", err) })}
		}()
		select {
		case <-p.started:
		case <-time.After(30 * time.Second):
			t.Fatal("the agent did not start")
		}
		interrupts <- syscall.SIGINT
		if twice {
			interrupts <- syscall.SIGTERM
		}
		var f wftemporal.Followed
		select {
		case d := <-done:
			f = d.f
		case <-time.After(60 * time.Second):
			t.Fatal("Follow did not return")
		}
		if !f.Interrupted {
			t.Fatalf("twice %v: not interrupted: %+v", twice, f)
		}
		if twice {
			if f.Abandoned != syscall.SIGTERM {
				t.Fatalf("two interrupts: abandoned %v", f.Abandoned)
			}
		} else if f.Abandoned != nil || f.Result.StopReason != engine.StopCancelled || f.Result.RunID != run.ID() {
			t.Fatalf("one interrupt: %+v", f)
		}
		// Either way the run is cancelled on Temporal.
		res, err := run.Wait(context.Background(), nil)
		if err != nil || res.StopReason != engine.StopCancelled {
			t.Fatalf("the run after Follow: %+v %v", res, err)
		}
		if !twice && len(events) == 0 {
			t.Fatal("Follow passed on no events")
		}
		select {
		case <-p.stopped:
		case <-time.After(30 * time.Second):
			t.Fatal("the cancelled run's agent kept running")
		}
	}
}
