package temporal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/internal/wferr"
)

// Client starts runs on Temporal and follows them. Its engine only checks
// requests before they are started (the workers check them again with
// their providers); it runs nothing.
type Client struct {
	c    client.Client
	eng  *engine.Engine
	opts Options
}

// NewClient returns a client that starts runs on opts.TaskQueue through c
// (from Dial), pre-checking each request with eng.
func NewClient(c client.Client, eng *engine.Engine, opts Options) *Client {
	return &Client{c: c, eng: eng, opts: opts.withDefaults()}
}

// Start checks req and starts it as a workflow; the run's id is the
// workflow's id. What the engine would refuse before running anything is
// refused here too, before anything is started — the script, its meta, a
// request above MaxAgentsPerRun — and so is what a run on Temporal cannot
// do (resumeFromRunId, isolate "process"). A request that names a
// provider this client's engine does not have is checked with the
// engine's default provider; the worker checks it with the real one.
func (c *Client) Start(ctx context.Context, req engine.WorkflowStartRequest) (*Run, error) {
	return c.start(ctx, req, nil)
}

func (c *Client) start(ctx context.Context, req engine.WorkflowStartRequest, memo map[string]any) (*Run, error) {
	if err := checkCeiling(req.MaxTotalAgents); err != nil {
		return nil, err
	}
	check := req
	check.ResumeFromRunId = "" // checked by the worker that reads the old run's history
	if _, ok := c.eng.Provider(check.SubagentProvider); !ok {
		check.SubagentProvider = ""
	}
	plan, err := c.eng.Plan(check)
	if err != nil {
		return nil, err
	}
	id := engine.NewRunID()
	opts := client.StartWorkflowOptions{
		ID: id, TaskQueue: c.opts.TaskQueue, WorkflowTaskTimeout: workflowTaskTimeout,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE, Memo: memo,
		TypedSearchAttributes: temporal.NewSearchAttributes(
			AttrName.ValueSet(plan.Meta.Name), AttrParent.ValueSet(req.Parent), AttrStatus.ValueSet(StatusRunning)),
	}
	req.OnEvent = nil
	wr, err := c.c.ExecuteWorkflow(ctx, opts, WorkflowName, req)
	if err != nil {
		return nil, wferr.Wrap(wferr.InvalidRequest, err, "Temporal did not start the run: %v", err)
	}
	return &Run{c: c.c, id: id, runID: wr.GetRunID()}, nil
}

// Execute starts req and waits for its result, handing onEvent (if set)
// the run's events as they come: the shape tool.Options.Remote asks for.
// When ctx is done first, the run is cancelled, and its result (stopReason
// "cancelled") is still waited for and returned. A request refused before
// it started is an error.
func (c *Client) Execute(ctx context.Context, req engine.WorkflowStartRequest, onEvent func(engine.Event)) (engine.WorkflowResult, error) {
	run, err := c.Start(ctx, req)
	if err != nil {
		return engine.WorkflowResult{}, err
	}
	stop := context.AfterFunc(ctx, func() { _ = run.Cancel(context.WithoutCancel(ctx)) })
	defer stop()
	return run.Wait(context.WithoutCancel(ctx), onEvent)
}

// Run returns the run with the id a Start returned, to follow, wait for or
// cancel from another process.
func (c *Client) Run(id string) *Run { return &Run{c: c.c, id: id} }

// Run is one run on Temporal, seen from a client.
type Run struct {
	c     client.Client
	id    string
	runID string // Temporal's run of the workflow; "" the latest
}

// ID is the run's id: the workflow id, "wf_" and 16 hex digits.
func (r *Run) ID() string { return r.id }

// followEvery is how often Wait asks a running workflow for new events.
const followEvery = 250 * time.Millisecond

// Wait blocks until the run has settled and returns its WorkflowResult.
// With onEvent it follows the run meanwhile: onEvent gets the run's events
// in order, as the workflow's events query hands them out, up to run.end.
// ctx bounds the wait, not the run (Cancel cancels the run).
func (r *Run) Wait(ctx context.Context, onEvent func(engine.Event)) (engine.WorkflowResult, error) {
	type settled struct {
		res engine.WorkflowResult
		err error
	}
	done := make(chan settled, 1)
	go func() {
		var res engine.WorkflowResult
		for {
			err := r.c.GetWorkflow(ctx, r.id, r.runID).Get(ctx, &res)
			if transient(err) && ctx.Err() == nil {
				// A long poll for the result that the server or a busy
				// machine let time out: the run goes on; ask again.
				time.Sleep(100 * time.Millisecond)
				continue
			}
			done <- settled{res, err}
			return
		}
	}()
	next := 0
	var tick <-chan time.Time
	if onEvent != nil {
		t := time.NewTicker(followEvery)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case s := <-done:
			if s.err != nil {
				var terminated *temporal.TerminatedError
				if errors.As(s.err, &terminated) {
					if res := terminatedResult(ctx, r.c, r.id, r.runID); res != nil {
						return *res, nil
					}
				}
				return engine.WorkflowResult{}, unsettled(r.id, s.err)
			}
			if onEvent != nil {
				for {
					n, err := r.follow(ctx, next, onEvent)
					if err != nil || n == next {
						break
					}
					next = n
				}
			}
			return s.res, nil
		case <-tick:
			for { // page after page until caught up
				n, err := r.follow(ctx, next, onEvent)
				if err != nil || n == next {
					break
				}
				next = n
			}
		}
	}
}

// transient reports whether err is a failed poll rather than an answer
// about the run: a deadline or an unavailable server.
func transient(err error) bool {
	var (
		deadline    *serviceerror.DeadlineExceeded
		unavailable *serviceerror.Unavailable
	)
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &deadline) || errors.As(err, &unavailable)
}

// unsettled is the error of a workflow that ended without a result: one
// terminated or timed out by Temporal itself (wfrun's own workflow always
// completes, with the run's failure in its result).
func unsettled(id string, err error) error {
	var (
		terminated *temporal.TerminatedError
		timeout    *temporal.TimeoutError
		canceled   *temporal.CanceledError
	)
	switch {
	case errors.As(err, &terminated):
		return wferr.Wrap(wferr.Cancelled, err, "run %s was terminated on Temporal before it settled, so it has no result", id)
	case errors.As(err, &canceled):
		return wferr.Wrap(wferr.Cancelled, err, "run %s was cancelled on Temporal before it started", id)
	case errors.As(err, &timeout):
		return wferr.Wrap(wferr.Timeout, err, "run %s passed its Temporal execution timeout before it settled", id)
	}
	return wferr.Wrap(wferr.Internal, err, "wfrun bug: run %s ended on Temporal without a result: %v; please report it with the script", id, err)
}

// follow hands onEvent the events from offset from on, one page, and
// returns the offset after them.
func (r *Run) follow(ctx context.Context, from int, onEvent func(engine.Event)) (int, error) {
	qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	v, err := r.c.QueryWorkflow(qctx, r.id, r.runID, QueryEvents, from)
	if err != nil {
		return from, err
	}
	var page EventPage
	if err := v.Get(&page); err != nil {
		return from, err
	}
	for _, ev := range page.Events {
		onEvent(ev)
	}
	return page.Next, nil
}

// Cancel cancels the run: the workflow is cancelled, the run stops
// starting agents and cancels the running ones' activities, and it
// settles with stopReason "cancelled".
func (r *Run) Cancel(ctx context.Context) error {
	if err := r.c.CancelWorkflow(ctx, r.id, r.runID); err != nil {
		return fmt.Errorf("run %s: %w", r.id, err)
	}
	return nil
}

// keyword reads a Keyword search attribute's payload.
func keyword(p *commonpb.Payload) string {
	var s string
	if p == nil || converter.GetDefaultDataConverter().FromPayload(p, &s) != nil {
		return ""
	}
	return s
}

// quietLogger keeps the SDK's chatter (polls, retries, a stopping
// worker's goodbyes) out of wfrun's output; errors still reach stderr.
type quietLogger struct{}

func (quietLogger) Debug(string, ...any) {}
func (quietLogger) Info(string, ...any)  {}
func (quietLogger) Warn(string, ...any)  {}
func (quietLogger) Error(msg string, kv ...any) {
	fmt.Fprintln(os.Stderr, append([]any{"temporal:", msg}, kv...)...)
}
