package temporal

import (
	"context"
	"fmt"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/workflow"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/internal/wferr"
)

// A poison run is one whose workflow task fails every time it is tried: a
// script that crashes the worker process, or trips a bug that panics the
// workflow task. Temporal retries a failed workflow task forever, on the
// next worker, so one such run would take the workers down one after
// another (or keep them replaying it). A worker therefore looks at the
// attempt of the workflow task it is about to run whenever it rebuilds a
// run from its history — which is what every retry of a failed or
// timed-out task does, since a failure drops the run from the worker's
// cache and a crash loses it — and ends the run once MaxTaskAttempts
// attempts have failed: it terminates the workflow with a reason that says
// so (poisonReason), and Run.Wait turns that into an INTERNAL result. The
// other runs and the workers go on.
//
// The look is a read of the server's view of the run
// (DescribeWorkflowExecution), never a command: it changes no history, and
// a fresh run's first task (a history of three events) skips it.

// MaxTaskAttempts is how many attempts of one workflow task may fail
// before the run is ended.
const MaxTaskAttempts = 3

// poisonReason starts the termination reason of a run ended for it.
const poisonReason = "wfrun: poison run: "

// poisonGuard ends the run of info when its current workflow task has
// already failed MaxTaskAttempts times, and says whether it did. c is the
// worker's client; nil (the SDK's test environment) skips the guard.
func poisonGuard(c client.Client, ctx workflow.Context) bool {
	info := workflow.GetInfo(ctx)
	if c == nil || info.GetCurrentHistoryLength() <= 3 {
		return false
	}
	id, runID := info.WorkflowExecution.ID, info.WorkflowExecution.RunID
	dctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	d, err := c.DescribeWorkflowExecution(dctx, id, runID)
	if err != nil {
		return false // no answer: run the task; the next retry asks again
	}
	attempt := d.GetPendingWorkflowTask().GetAttempt()
	if attempt <= MaxTaskAttempts {
		return false
	}
	reason := fmt.Sprintf("%sits workflow task failed %d times on the workers (a crash, a panic or a timeout each time), so the run was ended to keep the workers alive; the script triggers a failure of the worker — report it with the script", poisonReason, attempt-1)
	if err := c.TerminateWorkflow(dctx, id, runID, reason); err != nil {
		workflow.GetLogger(ctx).Warn("wfrun: cannot end a poison run", "run", id, "error", err)
		return false
	}
	workflow.GetLogger(ctx).Warn("wfrun: ended a poison run", "run", id, "attempts", attempt-1)
	return true
}

// terminatedResult is the result of run id when Temporal terminated it:
// for a poison run, the INTERNAL failure its reason gives; else nil.
func terminatedResult(ctx context.Context, c client.Client, id, runID string) *engine.WorkflowResult {
	it := c.GetWorkflowHistory(ctx, id, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return nil
		}
		reason := ev.GetWorkflowExecutionTerminatedEventAttributes().GetReason()
		if msg, ok := strings.CutPrefix(reason, poisonReason); ok {
			res := engine.FailedResult(id, wferr.New(wferr.Internal, "the run was ended: %s", msg))
			return &res
		}
	}
	return nil
}
