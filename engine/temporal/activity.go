package temporal

import (
	"context"

	"fmt"
	"go.temporal.io/sdk/client"
	stdruntime "runtime"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/internal/wferr"
)

// errWorkerStopped is the error type of an agent activity whose worker
// stopped under it: the one error of the activity that Temporal retries,
// on another worker.
const errWorkerStopped = "WFRUN_WORKER_STOPPED"

// AgentCall is the input of the agent activity: one child of a run, for
// the provider of that name on whichever worker takes it.
type AgentCall struct {
	Provider string           `json:"provider"`
	Request  agentapi.Request `json:"request"`
}

// activities are what a worker runs outside workflow code, with its
// engine's providers, workflows folder and limits.
type activities struct {
	eng    *engine.Engine
	opts   Options
	client client.Client // the worker's, to read an earlier run's history; nil: none
}

// Agent runs one child through the worker's provider. It heartbeats while
// the provider works, so that a lost worker is noticed and the agent given
// to another, and a cancellation from the workflow reaches the provider's
// context. The child's failure is data in the result; only a broken
// provider is an error, never retried.
func (a *activities) Agent(ctx context.Context, call AgentCall) (agentapi.Result, error) {
	p, ok := a.eng.Provider(call.Provider)
	if !ok {
		return agentapi.Result{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("this worker has no provider %q (it has %v); start every worker of the task queue with the same providers", call.Provider, a.eng.Providers()),
			string(wferr.AgentStart), nil)
	}
	stop := heartbeat(ctx, a.opts.HeartbeatTimeout/3)
	res, err := runProvider(ctx, p, call.Request)
	stop()
	if ctx.Err() != nil {
		select {
		case <-activity.GetWorkerStopChannel(ctx):
			return agentapi.Result{}, temporal.NewApplicationError(
				fmt.Sprintf("the worker running agent %s stopped before the agent finished; another worker runs it again", call.Request.AgentID),
				errWorkerStopped)
		default:
		}
		// Cancelled by the workflow (which has already moved on) or past
		// the activity's own deadline: Temporal records which.
		return agentapi.Result{}, ctx.Err()
	}
	if err != nil {
		code := ""
		if we, ok := wferr.As(err); ok {
			code = string(we.Code)
			err = fmt.Errorf("%s", we.Message)
		}
		return agentapi.Result{}, temporal.NewNonRetryableApplicationError(err.Error(), code, nil)
	}
	return res, nil
}

// runProvider runs the provider, turning a panic into the AGENT_RESULT
// error the run would have raised in process.
func runProvider(ctx context.Context, p agentapi.Provider, req agentapi.Request) (res agentapi.Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			buf := make([]byte, 2048)
			buf = buf[:stdruntime.Stack(buf, false)]
			err = wferr.New(wferr.AgentResult, "the %q provider panicked while running agent %s: %v\n%s", p.Name(), req.AgentID, v, buf)
		}
	}()
	return p.Run(ctx, req)
}

// heartbeat records a heartbeat every interval until stop is called; stop
// returns once the heartbeat goroutine has.
func heartbeat(ctx context.Context, every time.Duration) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

// prepared is what the prepare activity found: the run's plan, or the
// pre-check that failed, as data (a failed pre-check is the run's result,
// not an activity failure to retry).
type prepared struct {
	Plan  *engine.RunPlan `json:"plan,omitempty"`
	Error *wireError      `json:"error,omitempty"`
}

// Prepare runs the engine's pre-checks on a worker, where the providers
// are, and returns the plan the run follows. It runs as a local activity:
// its result is kept in the history, so a replay on any other worker
// follows the same plan.
func (a *activities) Prepare(_ context.Context, req engine.WorkflowStartRequest) (prepared, error) {
	if err := checkCeiling(req.MaxTotalAgents); err != nil {
		return prepared{Error: toWire(err)}, nil
	}
	req.ResumeFromRunId = "" // the history is a resumed run's journal (Prior), not a runs folder
	plan, err := a.eng.Plan(req)
	if err != nil {
		return prepared{Error: toWire(err)}, nil
	}
	capPlan(&plan)
	return prepared{Plan: &plan}, nil
}

// loaded is a saved workflow's source, or why it could not be loaded.
type loaded struct {
	File   string     `json:"file,omitempty"`
	Source string     `json:"source,omitempty"`
	Error  *wireError `json:"error,omitempty"`
}

// LoadWorkflow reads a saved workflow for workflow(name) from the
// worker's workflows folder; the source goes into the history, so the
// replay runs the same nested script even if the file changes.
func (a *activities) LoadWorkflow(_ context.Context, name string) (loaded, error) {
	file, src, err := a.eng.LoadWorkflow(name)
	if err != nil {
		return loaded{Error: toWire(err)}, nil
	}
	return loaded{File: file, Source: src}, nil
}

// PersonaCall asks the worker whether its provider of that name knows an
// agentType.
type PersonaCall struct {
	Provider string `json:"provider"`
	Name     string `json:"name"`
}

// CheckPersona checks an agentType computed at run time with the worker's
// provider, for the run to refuse it at the script's line as it would in
// process. It answers "" for a name the provider can run (or a provider
// that does not check names), else what is wrong; the answer goes into the
// history, so every replay decides the same.
func (a *activities) CheckPersona(_ context.Context, call PersonaCall) (string, error) {
	p, ok := a.eng.Provider(call.Provider)
	if !ok {
		return "", nil // the agent activity says so, as for any call
	}
	pc, ok := p.(agentapi.PersonaChecker)
	if !ok {
		return "", nil
	}
	if err := pc.CheckPersona(call.Name); err != nil {
		return err.Error(), nil
	}
	return "", nil
}

// wireError is a *wferr.Error as data.
type wireError struct {
	Code    wferr.Code `json:"code"`
	Message string     `json:"message"`
	Line    int        `json:"line,omitempty"`
	Column  int        `json:"column,omitempty"`
}

func toWire(err error) *wireError {
	we, ok := wferr.As(err)
	if !ok {
		we = wferr.Wrap(wferr.Internal, err, "%v", err)
	}
	return &wireError{Code: we.Code, Message: we.Message, Line: we.Line, Column: we.Column}
}

func (w *wireError) err() *wferr.Error {
	return &wferr.Error{Code: w.Code, Message: w.Message, Line: w.Line, Column: w.Column}
}
