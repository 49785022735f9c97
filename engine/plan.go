package engine

import (
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/internal/wferr"
	"github.com/wfrun/wfrun/meta"
	"github.com/wfrun/wfrun/runtime"
	"github.com/wfrun/wfrun/sandbox"
)

// RunPlan is a request that passed every pre-check of Start, as plain data:
// the meta, the warnings, the provider and every limit resolved against this
// engine's Config, the defaults applied. A scheduler that runs the script
// somewhere else (engine/temporal runs it inside a Temporal workflow, on
// whichever worker holds it) resolves the request once with Plan where the
// providers are, keeps the plan, and runs the script by it, so that every
// replay of the run uses the same limits whatever worker replays it.
type RunPlan struct {
	Meta         meta.WorkflowMeta     `json:"meta"`
	Warnings     []string              `json:"warnings,omitempty"`
	Provider     string                `json:"provider"`
	Capabilities agentapi.Capabilities `json:"capabilities"`
	// Workflows says that workflow(name) can load saved workflows (the
	// engine has a workflows folder).
	Workflows bool `json:"workflows,omitempty"`

	Concurrency      int           `json:"concurrency"`
	MaxAgents        int           `json:"maxAgents"`
	MaxItems         int           `json:"maxItems"`
	Timeout          time.Duration `json:"timeout,omitempty"`
	AgentTimeout     time.Duration `json:"agentTimeout,omitempty"`
	BudgetTokens     int64         `json:"budgetTokens,omitempty"`
	CancelGrace      time.Duration `json:"cancelGrace"`
	MaxResultBytes   int           `json:"maxResultBytes"`
	MaxMemory        int64         `json:"maxMemory"`
	MaxCallStackSize int           `json:"maxCallStackSize,omitempty"`
}

// Plan runs every pre-check of Start on req, as Check does, and returns the
// plan the run would follow. A request that resumes an earlier run or asks
// for process isolation is refused: both belong to runs this engine
// executes itself.
func (e *Engine) Plan(req WorkflowStartRequest) (RunPlan, error) {
	if req.ResumeFromRunId != "" {
		return RunPlan{}, wferr.New(wferr.InvalidRequest, "resumeFromRunId resumes a run of this engine's runs folder; a run planned for another scheduler replays from that scheduler's history instead: leave resumeFromRunId out")
	}
	if req.Isolate == IsolateProcess {
		return RunPlan{}, wferr.New(wferr.InvalidRequest, "isolate \"process\" runs the script in a child process of this engine; a run planned for another scheduler runs its script inside that scheduler's worker: leave isolate out")
	}
	p, err := e.prepare(req)
	if err != nil {
		return RunPlan{}, err
	}
	c := runtime.WithDefaults(p.cfg)
	return RunPlan{
		Meta: p.meta, Warnings: p.warnings, Provider: p.provider.Name(), Capabilities: p.provider.Capabilities(),
		Workflows:   e.workflowLoader() != nil,
		Concurrency: c.Concurrency, MaxAgents: c.MaxAgents, MaxItems: c.MaxItems,
		Timeout: c.Timeout, AgentTimeout: c.AgentTimeout, BudgetTokens: c.BudgetTokens,
		CancelGrace: c.CancelGrace, MaxResultBytes: c.MaxResultBytes, MaxMemory: c.MaxMemory,
		MaxCallStackSize: c.Sandbox.MaxCallStackSize,
	}, nil
}

// Config is the runtime.Config of the plan's limits, the inverse of what
// Plan read from the engine's: the scheduler that runs the plan adds the
// run's id, script, provider, sinks and scheduler of its own.
func (p RunPlan) Config() runtime.Config {
	return runtime.Config{
		Meta:        p.Meta,
		Concurrency: p.Concurrency, MaxAgents: p.MaxAgents, MaxItems: p.MaxItems,
		Timeout: p.Timeout, AgentTimeout: p.AgentTimeout, BudgetTokens: p.BudgetTokens,
		CancelGrace: p.CancelGrace, MaxResultBytes: p.MaxResultBytes, MaxMemory: p.MaxMemory,
		Sandbox: sandbox.Options{MaxCallStackSize: p.MaxCallStackSize},
	}
}

// LoadWorkflow resolves workflow(name) the way a run of this engine does,
// and returns the saved workflow's file name and source.
func (e *Engine) LoadWorkflow(name string) (file, source string, err error) {
	load := e.workflowLoader()
	if load == nil {
		return "", "", wferr.New(wferr.InvalidArgument, "workflow(%q): no workflows folder is configured; save workflows in WORKSPACE/.claude/workflows, or set --workflows-dir (CLI) or Config.WorkflowsDirs", name)
	}
	s, err := load(name)
	if err != nil {
		return "", "", err
	}
	return s.Name, s.Source, nil
}

// NewResult is the WorkflowResult of a run that ended with out after d:
// what Wait returns for a run of this engine, built the same way for a run
// that another scheduler executed.
func NewResult(runID string, out runtime.Outcome, warnings []string, d time.Duration) WorkflowResult {
	res := WorkflowResult{
		RunID: runID, Value: out.Value, StopReason: StopCompleted,
		AgentsSpawned: out.AgentsSpawned, Agents: out.Agents, Usage: out.Usage, Worktrees: out.Worktrees,
		Warnings: warnings,
	}
	if out.Err != nil {
		res.setError(out.Err)
	}
	if res.Value == nil {
		res.Value = nullJSON
	}
	res.DurationMs = d.Milliseconds()
	return res
}

// EndEvent is the run.end event of the run r settled: the result without
// its value, at t.
func (r WorkflowResult) EndEvent(t time.Time) Event {
	return Event{Type: EventRunEnd, RunID: r.RunID, Time: t, Result: r.summary()}
}
