package temporal

import (
	"context"
	"errors"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine"
)

// Remote is the workflow tool's view of the runs on Temporal that outlive
// the call that starts them (tool.Options.RemoteRuns): background runs,
// and workflow_status, workflow_wait, workflow_cancel and workflow_list
// over them. A run belongs to the owner that started it (its
// WorkflowStartRequest's parent, the WfrunParent search attribute); another
// owner's run is unknown here, as in process. Status comes from the run's
// events (the events query, answered by any worker) and, once it is over,
// its result.
type Remote struct{ c *Client }

// Remote returns the client's Remote.
func (c *Client) Remote() *Remote { return &Remote{c: c} }

// memoBackground is the memo key of a run started in the background.
const memoBackground = "wfrunBackground"

// Start starts req in the background and returns its run id.
func (r *Remote) Start(ctx context.Context, req engine.WorkflowStartRequest) (string, error) {
	req.Background = false // the workflow waits for nothing; the memo says how it was started
	run, err := r.c.start(ctx, req, map[string]any{memoBackground: true})
	if err != nil {
		return "", err
	}
	return run.ID(), nil
}

// Info is the run's status, or false when owner has no such run.
func (r *Remote) Info(ctx context.Context, owner, id string) (engine.RunInfo, bool, error) {
	d, err := r.c.c.DescribeWorkflowExecution(ctx, id, "")
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return engine.RunInfo{}, false, nil
	}
	if err != nil {
		return engine.RunInfo{}, false, err
	}
	ex := d.GetWorkflowExecutionInfo()
	if ex.GetType().GetName() != WorkflowName || keyword(ex.GetSearchAttributes().GetIndexedFields()[AttrParent.GetName()]) != owner {
		return engine.RunInfo{}, false, nil
	}
	in := engine.RunInfo{RunID: id, Owner: owner, Status: engine.RunRunning, StartedAt: ex.GetStartTime().AsTime()}
	if p := ex.GetMemo().GetFields()[memoBackground]; p != nil {
		in.Background = true
	}
	in.Meta.Name = keyword(ex.GetSearchAttributes().GetIndexedFields()[AttrName.GetName()])
	run := &Run{c: r.c.c, id: id}
	var logs engine.LogTail
	for next := 0; ; {
		n, err := run.follow(ctx, next, func(ev engine.Event) { foldInfo(&in, &logs, ev) })
		if err != nil || n == next {
			break
		}
		next = n
	}
	in.Logs = logs.Lines()
	end := time.Now()
	if ex.GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		if ex.GetCloseTime() != nil {
			end = ex.GetCloseTime().AsTime()
		}
		in.EndedAt = &end
		res, err := run.Wait(ctx, nil)
		if err != nil {
			res = engine.FailedResult(id, err)
		}
		in.Status = res.StopReason.RunStatus()
		in.ErrorCode, in.Error, in.Usage = res.ErrorCode, res.Error, res.Usage
		in.Agents = engine.AgentProgress{Done: res.Agents.Completed + res.Agents.Replayed, Failed: res.Agents.Failed + res.Agents.TimedOut, Cancelled: res.Agents.Cancelled}
	}
	in.ElapsedMs = end.Sub(in.StartedAt).Milliseconds()
	return in, true, nil
}

// foldInfo folds one event into a running run's status.
func foldInfo(in *engine.RunInfo, logs *engine.LogTail, ev engine.Event) {
	switch ev.Type {
	case engine.EventRunStart:
		if ev.Meta != nil {
			in.Meta = *ev.Meta
		}
	case engine.EventPhase:
		in.Phase = ev.Title
	case engine.EventLog:
		logs.Add(ev.Message)
	case engine.EventAgentStart:
		in.Agents.Running++
	case engine.EventAgentEnd:
		in.Agents.Running--
		switch ev.Outcome {
		case agentapi.StatusCompleted:
			in.Agents.Done++
		case agentapi.StatusCancelled:
			in.Agents.Cancelled++
		default:
			in.Agents.Failed++
		}
		if ev.Usage != nil {
			in.Usage = in.Usage.Add(*ev.Usage)
		}
	}
}

// Wait waits for owner's run id until ctx is done: its result and true,
// or false when ctx ended first (the run goes on); found is false for a
// run owner does not have.
func (r *Remote) Wait(ctx context.Context, owner, id string, onEvent func(engine.Event)) (res engine.WorkflowResult, done, found bool, err error) {
	if _, ok, err := r.Info(ctx, owner, id); err != nil || !ok {
		return engine.WorkflowResult{}, false, ok, err
	}
	res, err = (&Run{c: r.c.c, id: id}).Wait(ctx, onEvent)
	if err != nil && ctx.Err() != nil {
		return engine.WorkflowResult{}, false, true, nil
	}
	return res, err == nil, true, err
}

// Cancel cancels owner's run id; found is false for a run owner does not
// have.
func (r *Remote) Cancel(ctx context.Context, owner, id string) (found bool, err error) {
	if _, ok, err := r.Info(ctx, owner, id); err != nil || !ok {
		return ok, err
	}
	return true, (&Run{c: r.c.c, id: id}).Cancel(ctx)
}

// List is owner's runs, newest first, as their search attributes say.
func (r *Remote) List(ctx context.Context, owner string) ([]engine.RunInfo, error) {
	runs, err := r.c.Runs(ctx, owner, 100)
	if err != nil {
		return nil, err
	}
	out := make([]engine.RunInfo, 0, len(runs))
	for _, ri := range runs {
		in := engine.RunInfo{RunID: ri.RunID, Owner: ri.Parent, Status: engine.RunRunning, StartedAt: ri.Start,
			ElapsedMs: time.Since(ri.Start).Milliseconds()}
		in.Meta.Name = ri.Name
		if ri.Status != StatusRunning {
			in.Status = engine.StopReason(ri.Status).RunStatus()
		}
		out = append(out, in)
	}
	return out, nil
}
