package temporal_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/worker"

	"github.com/wfrun/wfrun/engine"
	wftemporal "github.com/wfrun/wfrun/engine/temporal"
	"github.com/wfrun/wfrun/internal/wferr"
)

// spin computes for n steps between two agents, without awaiting.
func spin(n int) string {
	return `export const meta = {name: 'spin', description: 'a busy stretch between two agents'}
await agent('before')
let x = 0
for (let i = 0; i < ` + itoa(n) + `; i++) { x = (x * 31 + i) % 1000003 }
const after = await agent('after ' + x)
return {x, after}`
}

func itoa(n int) string {
	b := []byte{}
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	if len(b) == 0 {
		return "0"
	}
	return string(b)
}

// TestEndToEnd_ALimitIsDecidedOnceAndReplayedFromTheHistory records two
// runs whose busy stretch is judged differently by two workers — one that
// allows 100 ms at a stretch and one that allows an hour — and replays
// each history under the other worker's limit. Without the limit in the
// history, the first replay would run the stretch to its end and ask for
// an agent the history never started, and the second would stop a stretch
// the history went past: both non-determinism errors.
func TestEndToEnd_ALimitIsDecidedOnceAndReplayedFromTheHistory(t *testing.T) {
	cases := []struct {
		name             string
		steps            int
		record, replay   time.Duration
		wantReason       engine.StopReason
		wantMessageParts string
	}{
		// Tens of millions of steps take seconds: far past 100 ms on any machine.
		{"fired when recorded, would not fire on replay", 40_000_000, 100 * time.Millisecond, time.Hour, engine.StopError, "without awaiting an agent"},
		// Three million steps take longer than the watch's first tick
		// (10 ms), when the replaying worker's limit of 1 ms is over.
		{"did not fire when recorded, would fire on replay", 3_000_000, time.Hour, time.Millisecond, engine.StopCompleted, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cl := newCluster(t)
			cl.opts.MaxBusy = c.record
			cl.worker(newCounting(0))
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			res, err := cl.client().Execute(ctx, engine.WorkflowStartRequest{Parent: "limits", Script: spin(c.steps)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.StopReason != c.wantReason {
				t.Fatalf("the recorded run ended %s (%s), want %s", res.StopReason, res.Error, c.wantReason)
			}
			if c.wantMessageParts != "" && (res.ErrorCode != engine.ErrorCode(wferr.ResourceLimit) || !strings.Contains(res.Error, c.wantMessageParts)) {
				t.Fatalf("the recorded run's error %s %q, want RESOURCE_LIMIT saying %q", res.ErrorCode, res.Error, c.wantMessageParts)
			}
			r, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{
				DataConverter: wftemporal.NewDataConverter(cl.opts.Payloads),
				// A replay that runs the busy stretch (the second case, and
				// the first without the limit in the history) computes for
				// as long as it takes on this machine: the limit is the
				// worker's, not the replayer's deadlock detector's.
				DisableDeadlockDetection: true,
			})
			if err != nil {
				t.Fatal(err)
			}
			wftemporal.RegisterReplay(r, wftemporal.Options{MaxBusy: c.replay})
			if err := r.ReplayWorkflowHistory(discard{}, history(t, cl.c, res.RunID)); err != nil {
				t.Fatalf("replaying the history under a limit of %s: %v", c.replay, err)
			}
		})
	}
}
