package temporal_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/wfrun/wfrun/engine"
	wftemporal "github.com/wfrun/wfrun/engine/temporal"
	"github.com/wfrun/wfrun/internal/wferr"
)

// slowEnv, set to 1, runs the end-to-end tests that take minutes: the
// server backs off between the attempts of a failing workflow task.
const slowEnv = "WFRUN_TEMPORAL_SLOW"

func TestEndToEnd_APoisonRunIsEndedAndTheWorkersLiveOn(t *testing.T) {
	if os.Getenv(slowEnv) != "1" {
		t.Skip("set " + slowEnv + "=1: the server backs off between a failing task's attempts, about two minutes")
	}
	cl := newCluster(t)
	// Two workers of the task queue: the failing task goes from one to the
	// other, as it would across a fleet.
	cl.worker(newCounting(0))
	cl.worker(newCounting(0))
	tasks := make(chan struct{}, 64)
	unset := wftemporal.SetTaskHook(func(req engine.WorkflowStartRequest) {
		if req.Parent == "poison" {
			tasks <- struct{}{}
			panic("a poison script")
		}
	})
	defer unset()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	script := "export const meta = {name: 'p', description: 'one agent'}\nreturn await agent('hi')"
	res, err := cl.client().Execute(ctx, engine.WorkflowStartRequest{Parent: "poison", Script: script}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.ErrorCode != engine.ErrorCode(wferr.Internal) || !strings.Contains(res.Error, "failed 3 times on the workers") {
		t.Fatalf("the poison run ended %s %s %q, want INTERNAL saying its task failed 3 times", res.StopReason, res.ErrorCode, res.Error)
	}
	if n := len(tasks); n != wftemporal.MaxTaskAttempts {
		t.Errorf("the poison script ran on %d workflow tasks, want %d", n, wftemporal.MaxTaskAttempts)
	}
	// The workers are still there and serve the next run.
	ok, err := cl.client().Execute(ctx, engine.WorkflowStartRequest{Parent: "healthy", Script: script}, nil)
	if err != nil || ok.StopReason != engine.StopCompleted {
		t.Fatalf("a run after the poison one: %+v %v", ok, err)
	}
	runs, err := cl.client().Runs(ctx, "poison", 10)
	if err != nil || len(runs) != 1 || runs[0].Status != "terminated" {
		t.Fatalf("the poison run is listed as %+v (%v), want terminated", runs, err)
	}
}
