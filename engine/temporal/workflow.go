package temporal

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/internal/wferr"
	"github.com/wfrun/wfrun/runtime"
	"github.com/wfrun/wfrun/sandbox"
)

// The search attributes of a run: its meta name, its owner (the request's
// parent) and its status ("running", then the stop reason). Every
// namespace that runs wfrun workflows needs them as Keyword attributes
// (EnsureSearchAttributes; the dev server has them).
var (
	AttrName   = temporal.NewSearchAttributeKeyKeyword("WfrunName")
	AttrParent = temporal.NewSearchAttributeKeyKeyword("WfrunParent")
	AttrStatus = temporal.NewSearchAttributeKeyKeyword("WfrunStatus")
)

// StatusRunning is AttrStatus of a run that has not settled; a settled
// run's is its stopReason.
const StatusRunning = "running"

// workflows holds the workflow function and what it needs from its worker.
// Nothing in it may differ between the workers of a task queue in a way
// the script could observe: what could (the providers' limits, the
// workflows folder) is read once through local activities, whose results
// the history keeps.
type workflows struct {
	opts   Options
	acts   *activities   // local activities are called by method value
	client client.Client // the worker's, to end poison runs; nil: none
	sent   *sentEvents   // what Options.Events has had of each run
}

// taskHook, when set (by tests), runs at the start of every workflow task
// that starts the workflow function, after the poison guard.
var taskHook atomic.Pointer[func(req engine.WorkflowStartRequest)]

// Run is the workflow: it runs one WorkflowStartRequest with wfrun's own
// runtime, the VM inside this workflow function, each agent() an activity.
// It settles into the WorkflowResult an in-process run would give; a run
// that fails is still a workflow that completes, with the failure in the
// result, so that its result and events can be read like any other.
func (w *workflows) Run(ctx workflow.Context, req engine.WorkflowStartRequest) (engine.WorkflowResult, error) {
	if poisonGuard(w.client, ctx) {
		return engine.WorkflowResult{}, temporal.NewNonRetryableApplicationError("the run was ended as a poison run", "wfrun.poison", nil)
	}
	if hook := taskHook.Load(); hook != nil {
		(*hook)(req)
	}
	runID := workflow.GetInfo(ctx).WorkflowExecution.ID
	start := workflow.Now(ctx)
	info := workflow.GetInfo(ctx)
	log := &eventLog{ctx: ctx, forward: w.opts.Events, sent: w.sent, key: info.WorkflowExecution.ID + "/" + info.WorkflowExecution.RunID}
	if err := workflow.SetQueryHandler(ctx, QueryEvents, log.page); err != nil {
		return engine.WorkflowResult{}, err
	}
	sched := newScheduler(ctx)
	lctx := workflow.WithLocalActivityOptions(sched.detached, workflow.LocalActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
	})

	var prep prepared
	if err := workflow.ExecuteLocalActivity(lctx, w.acts.Prepare, req).Get(lctx, &prep); err != nil {
		return w.settle(ctx, log, engine.FailedResult(runID, wferr.Wrap(wferr.Internal, err, "wfrun bug: the run could not be planned on a worker: %v", err)))
	}
	if prep.Error != nil {
		return w.settle(ctx, log, engine.FailedResult(runID, prep.Error.err()))
	}
	plan := *prep.Plan
	name := req.ScriptName
	if name == "" {
		name = engine.DefaultScriptName
	}
	script, err := sandbox.Parse(name, req.Script)
	if err != nil {
		return w.settle(ctx, log, engine.FailedResult(runID, err))
	}
	log.emit(engine.Event{Type: engine.EventRunStart, RunID: runID, Time: workflow.Now(ctx), Meta: &plan.Meta,
		Warnings: plan.Warnings, Concurrency: plan.Concurrency})

	// The workflow's cancellation becomes the run's, with a cause the
	// result shows; the run then cancels its agents' activities itself.
	runCtx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	over := false
	workflow.Go(sched.detached, func(wc workflow.Context) {
		_ = workflow.Await(wc, func() bool { return over || ctx.Err() != nil })
		if !over {
			cancel(runtime.CancelledError("the Temporal workflow was cancelled"))
		}
	})

	cfg := plan.Config()
	cfg.RunID, cfg.Parent, cfg.Script, cfg.Args = runID, req.Parent, script, req.Args
	if req.ResumeFromRunId != "" {
		var pr prior
		if err := workflow.ExecuteLocalActivity(lctx, w.acts.Prior, priorRun{ID: req.ResumeFromRunId, Owner: req.Parent}).Get(lctx, &pr); err != nil {
			pr.Error = toWire(wferr.Wrap(wferr.Internal, err, "wfrun bug: run %s could not be read on a worker to resume it: %v", req.ResumeFromRunId, err))
		}
		if pr.Error != nil {
			res := engine.FailedResult(runID, pr.Error.err())
			log.emit(res.EndEvent(workflow.Now(ctx)))
			return w.settle(ctx, log, res)
		}
		cfg.Journal = historyJournal{entries: pr.Entries}
	}
	cfg.Provider = &activityProvider{sched: sched, name: plan.Provider, caps: plan.Capabilities, opts: &w.opts,
		plan: limits{timeout: plan.Timeout, grace: plan.CancelGrace}}
	if plan.Capabilities.Persona {
		provider := cfg.Provider.(*activityProvider)
		provider.checkPersona = func(name string) (string, error) {
			var problem string
			err := workflow.ExecuteLocalActivity(lctx, w.acts.CheckPersona, PersonaCall{Provider: plan.Provider, Name: name}).Get(lctx, &problem)
			return problem, err
		}
	}
	cfg.MaxBusy, cfg.Emit, cfg.Scheduler = w.opts.MaxBusy, log.emit, sched
	if plan.Workflows {
		cfg.LoadWorkflow = func(name string) (*sandbox.Script, error) {
			var l loaded
			if err := workflow.ExecuteLocalActivity(lctx, w.acts.LoadWorkflow, name).Get(lctx, &l); err != nil {
				return nil, wferr.Wrap(wferr.Internal, err, "wfrun bug: workflow(%q) could not be loaded on a worker: %v", name, err)
			}
			if l.Error != nil {
				return nil, l.Error.err()
			}
			return sandbox.Parse(l.File, l.Source)
		}
	}
	out := runtime.Run(runCtx, cfg)
	over = true
	res := engine.NewResult(runID, out, plan.Warnings, workflow.Now(ctx).Sub(start))
	log.emit(res.EndEvent(workflow.Now(ctx)))
	return w.settle(ctx, log, res)
}

// settle records the run's status in its search attributes and completes
// the workflow with its result. It works on a cancelled workflow too.
func (w *workflows) settle(ctx workflow.Context, _ *eventLog, res engine.WorkflowResult) (engine.WorkflowResult, error) {
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	if err := workflow.UpsertTypedSearchAttributes(dctx, AttrStatus.ValueSet(string(res.StopReason))); err != nil {
		workflow.GetLogger(dctx).Warn("wfrun: cannot record the run's status", "error", err)
	}
	return res, nil
}

// eventLog keeps a run's events in the workflow's memory: a replay
// rebuilds it, so the events query answers the same on any worker.
// Coroutines and the query handler take turns; none runs beside another.
//
// The worker's own sink (Options.Events) gets every event of every run the
// worker works on, once: a worker that takes a run over from another
// replays its history first, and the events of that replay reach the sink
// as soon as the run goes on live here (a replay that never goes live — a
// query of a finished run — forwards nothing); sent remembers how many
// events of each running run the worker has forwarded, so rebuilding a run
// it already served (its cache dropped it) forwards only what is new.
type eventLog struct {
	ctx     workflow.Context
	forward func(engine.Event)
	sent    *sentEvents
	key     string // the run's workflow and run id, sent's key
	events  []engine.Event
}

func (l *eventLog) emit(ev engine.Event) {
	l.events = append(l.events, ev)
	if l.forward == nil || workflow.IsReplaying(l.ctx) {
		return
	}
	l.sent.flush(l.key, l.events, l.forward, ev.Type == engine.EventRunEnd)
}

// sentEvents counts, per running run, the events a worker has forwarded
// to its sink. Workflow executions run on goroutines of their own, hence
// the mutex.
type sentEvents struct {
	mu sync.Mutex
	n  map[string]int
}

// flush forwards the events of run key not forwarded yet; end forgets the
// run (its last event is in evs).
func (s *sentEvents) flush(key string, evs []engine.Event, forward func(engine.Event), end bool) {
	s.mu.Lock()
	from := min(s.n[key], len(evs))
	if end {
		delete(s.n, key)
	} else {
		s.n[key] = len(evs)
	}
	s.mu.Unlock()
	for _, ev := range evs[from:] {
		forward(ev)
	}
}

// EventPage is the answer to the events query: the run's events from the
// offset asked for, as many as fit in a payload the history's codec keeps
// inline (at least one), and the offset to ask next.
type EventPage struct {
	Events []engine.Event `json:"events"`
	Next   int            `json:"next"`
}

// pageBytes bounds a page's JSON, so that following a run does not put a
// file into the payload store at every poll.
const pageBytes = PayloadInline - 512

func (l *eventLog) page(from int) (EventPage, error) {
	from = min(max(from, 0), len(l.events))
	to, size := from, 0
	for to < len(l.events) {
		b, err := json.Marshal(l.events[to])
		if err != nil {
			return EventPage{}, err
		}
		if to > from && size+len(b) > pageBytes {
			break
		}
		size += len(b) + 1
		to++
	}
	return EventPage{Events: l.events[from:to], Next: to}, nil
}
