package temporal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/internal/wferr"
	"github.com/wfrun/wfrun/runtime"
)

// activityProvider is the provider the run sees inside the workflow: its
// Run schedules the agent activity, which any worker of the task queue
// runs through the real provider of that name, and waits for it on the
// child's coroutine. Name and Capabilities are the real provider's, from
// the run's plan, so the run checks agent() options exactly as it would in
// process.
type activityProvider struct {
	sched *scheduler
	name  string
	caps  agentapi.Capabilities
	opts  *Options
	plan  limits // what the activity options derive from

	// checkPersona asks a worker about an agentType (a local activity);
	// nil: every name is left to the agent activity. personas memoizes
	// its answers for the run: the loop asks in the same order on every
	// replay, so the history holds one check per distinct name.
	checkPersona func(name string) (problem string, err error)
	personas     map[string]string
}

// CheckPersona makes the run refuse an unknown agentType at the agent()
// call, with the script's line, as it does in process: a literal name was
// checked before the run started, a computed one is checked here.
func (p *activityProvider) CheckPersona(name string) error {
	if p.checkPersona == nil {
		return nil
	}
	problem, ok := p.personas[name]
	if !ok {
		var err error
		if problem, err = p.checkPersona(name); err != nil {
			return fmt.Errorf("the agentType %q could not be checked on a worker: %v", name, err)
		}
		if p.personas == nil {
			p.personas = map[string]string{}
		}
		p.personas[name] = problem
	}
	if problem != "" {
		return errors.New(problem)
	}
	return nil
}

func (p *activityProvider) Name() string                        { return p.name }
func (p *activityProvider) Capabilities() agentapi.Capabilities { return p.caps }

// Run runs req as the agent activity. It returns as soon as ctx is done
// (the run is stopping, or the child's own timeout passed): the activity
// is asked to cancel and its eventual result is not waited for, so the
// child ends at once, as a provider that honours cancellation would end
// it; the runtime then tells a timeout from a cancellation by ctx's cause.
func (p *activityProvider) Run(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
	actx, cancel := workflow.WithCancel(p.sched.current)
	actx = workflow.WithActivityOptions(actx, p.opts.activityOptions(req, p.plan))
	fut := workflow.ExecuteActivity(actx, agentActivity, AgentCall{Provider: p.name, Request: req})
	wc := p.sched.block(func() bool { return fut.IsReady() || ctx.Err() != nil })
	if !fut.IsReady() {
		cancel()
		return agentapi.Result{Status: agentapi.StatusCancelled, Failure: agentapi.FailureCancelled,
			Error: fmt.Sprintf("the agent was cancelled: %v", context.Cause(ctx))}, nil
	}
	var res agentapi.Result
	if err := fut.Get(wc, &res); err != nil {
		return activityFailure(req, err)
	}
	return res, nil
}

// activityFailure turns the error of an agent activity into what a
// provider would have said: a child's failure as data, a broken provider as
// an error whose code the runtime keeps.
func activityFailure(req agentapi.Request, err error) (agentapi.Result, error) {
	var (
		app      *temporal.ApplicationError
		canceled *temporal.CanceledError
		timeout  *temporal.TimeoutError
	)
	switch {
	case errors.As(err, &canceled):
		return agentapi.Result{Status: agentapi.StatusCancelled, Failure: agentapi.FailureCancelled,
			Error: "the agent's activity was cancelled"}, nil
	case errors.As(err, &timeout):
		return agentapi.Result{Status: agentapi.StatusFailed, Failure: agentapi.FailureUpstreamUnavailable,
			Error: fmt.Sprintf("no worker finished agent %s: its activity timed out (%s) on every attempt; check that workers of the task queue are running and can reach the provider", req.AgentID, timeout.TimeoutType())}, nil
	case errors.As(err, &app) && app.Type() == errWorkerStopped:
		return agentapi.Result{Status: agentapi.StatusFailed, Failure: agentapi.FailureUpstreamUnavailable,
			Error: fmt.Sprintf("agent %s was cut short by a stopping worker on every attempt; keep workers running until their agents finish (worker stop timeout)", req.AgentID)}, nil
	case errors.As(err, &app) && slices.Contains(wferr.Codes, wferr.Code(app.Type())):
		return agentapi.Result{}, &wferr.Error{Code: wferr.Code(app.Type()), Message: app.Message()}
	case errors.As(err, &app):
		return agentapi.Result{}, errors.New(app.Message())
	}
	return agentapi.Result{}, err
}

// activityID names agent seq's activity by its seq and its call key, so
// that a script changed between two workers — a call with another prompt,
// schema or model at the same place — is a non-determinism error when the
// history is replayed, never an old answer handed to a new question (the
// replay rule of durable runs).
func activityID(req agentapi.Request) string {
	sum := sha256.Sum256([]byte(runtime.CallKey(req)))
	return "agent-" + strconv.Itoa(req.Seq) + "-" + hex.EncodeToString(sum[:6])
}
