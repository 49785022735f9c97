package engine

import (
	"context"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/meta"
)

// Observer follows every run of an engine together with the contexts the
// run and its children run under: what a tracer needs and an event sink
// cannot give. Package engine/trace implements it with OpenTelemetry.
//
// The engine calls an Observer from several goroutines at once (different
// runs, different children); its methods must be safe for that, must not
// block for long and must not call back into the engine.
type Observer interface {
	// StartRun is called once per run by Start, on the goroutine that
	// called Start, after every pre-check has passed and right before the
	// run's run.start event; ctx is the context given to Start. The run,
	// and so every child of it, runs under the context StartRun returns,
	// which must be ctx or derived from it.
	StartRun(ctx context.Context, run ObservedRun) context.Context
	// StartChild is called on a child's own goroutine after its
	// agent.start event and before its provider runs; the provider gets
	// the context StartChild returns, which must be ctx or derived from it.
	StartChild(ctx context.Context, req agentapi.Request) context.Context
	// Event receives every event of every run, run.start to run.end, like
	// Config.Events (one call at a time per run).
	Event(Event)
}

// ObservedRun is what an Observer learns about a run when it starts.
type ObservedRun struct {
	RunID    string
	Parent   string // WorkflowStartRequest.Parent: the agent that owns the run
	Provider string // the provider every child of the run uses
	Meta     meta.WorkflowMeta
}

// EndResult returns the result a run.end event carries (without its value),
// and false for any other event.
func EndResult(ev Event) (WorkflowResult, bool) {
	if ev.Type != EventRunEnd {
		return WorkflowResult{}, false
	}
	s, ok := ev.Result.(summary)
	return s.WorkflowResult, ok
}
