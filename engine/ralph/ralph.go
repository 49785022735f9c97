package ralph

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/internal/wferr"
)

//go:embed script.js
var script string

// Script returns the loop's workflow script.
func Script() string { return script }

// Defaults of Options.
const (
	DefaultMaxRounds       = 10
	MaxRounds              = 1000 // the engine's default ceiling of agents per run
	DefaultMaxHandoffChars = 16 << 10
	DefaultOwner           = "ralph"
)

// Options is one loop.
type Options struct {
	// Objective is what the rounds work toward (required).
	Objective string
	// MaxRounds caps the rounds; 0 means DefaultMaxRounds.
	MaxRounds int
	// BudgetTokens caps the tokens of all rounds; 0 means the engine's budget.
	BudgetTokens int64
	// MaxHandoffChars is the largest handoff, in characters of its JSON; a
	// larger one fails its round. 0 means DefaultMaxHandoffChars.
	MaxHandoffChars int
	// Parent owns the loop's run; "" means DefaultOwner.
	Parent string
	// Model and SubagentProvider are as in engine.WorkflowStartRequest.
	Model, SubagentProvider string
	// ResumeFromRunId resumes a stopped loop: the rounds it finished are
	// replayed from its journal and the loop goes on at the next one.
	ResumeFromRunId string
	// Background and OnEvent are as in engine.WorkflowStartRequest.
	Background bool
	OnEvent    func(engine.Event)
}

// Status is a handoff's status.
type Status string

// The handoff statuses.
const (
	StatusContinue Status = "continue"
	StatusComplete Status = "complete"
	StatusBlocked  Status = "blocked"
)

// Handoff is what a round hands to the next.
type Handoff struct {
	Status    Status   `json:"status"`
	Summary   string   `json:"summary"`
	Evidence  []string `json:"evidence"`
	NextSteps []string `json:"nextSteps"`
	Blocker   string   `json:"blocker,omitempty"`
}

// Ending is how a loop ended.
type Ending string

// The endings.
const (
	EndComplete      Ending = "complete"
	EndBlocked       Ending = "blocked"
	EndBudgetLimited Ending = "budget-limited" // the round cap or the token budget
	EndRoundFailed   Ending = "round-failed"   // a round's agent failed or its handoff broke a rule
)

// Result is how a loop ended: its ending, the rounds that handed off, the
// last good handoff (nil when no round did), and the run.
type Result struct {
	RunID   string   `json:"runId"`
	Ending  Ending   `json:"ending"`
	Rounds  int      `json:"rounds"`
	Handoff *Handoff `json:"handoff"`
	// Round and Reason say which round failed and why (round-failed), or
	// why the loop stopped (budget-limited).
	Round  int    `json:"round,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Workflow is the run's WorkflowResult.
	Workflow engine.WorkflowResult `json:"workflow"`
}

// RoundFailedError is Run's error for a loop that ended round-failed: it
// carries the last good handoff, so the work so far is not lost.
type RoundFailedError struct {
	RunID       string
	Round       int
	Reason      string
	LastHandoff *Handoff
}

func (e *RoundFailedError) Error() string {
	return fmt.Sprintf("the Ralph loop %s failed in round %d: %s", e.RunID, e.Round, e.Reason)
}

// Request returns the workflow request of a loop, or an error naming what
// is wrong with o.
func Request(o Options) (engine.WorkflowStartRequest, error) {
	o.Objective = strings.TrimSpace(o.Objective)
	if o.Objective == "" {
		return engine.WorkflowStartRequest{}, wferr.New(wferr.InvalidRequest,
			"the Ralph loop needs an objective: say what the rounds should achieve and how to tell it is done")
	}
	if o.MaxRounds < 0 || o.MaxRounds > MaxRounds || o.MaxHandoffChars < 0 || o.BudgetTokens < 0 {
		return engine.WorkflowStartRequest{}, wferr.New(wferr.InvalidRequest,
			"maxRounds must be between 1 and %d, and maxHandoffChars and budgetTokens must not be negative (0 means the default)", MaxRounds)
	}
	if o.MaxRounds == 0 {
		o.MaxRounds = DefaultMaxRounds
	}
	if o.MaxHandoffChars == 0 {
		o.MaxHandoffChars = DefaultMaxHandoffChars
	}
	if o.Parent == "" {
		o.Parent = DefaultOwner
	}
	args, _ := json.Marshal(map[string]any{"objective": o.Objective, "maxRounds": o.MaxRounds, "maxHandoffChars": o.MaxHandoffChars})
	return engine.WorkflowStartRequest{
		Script: script, ScriptName: "ralph.js", Args: args, Parent: o.Parent,
		MaxTotalAgents: o.MaxRounds, BudgetTokens: o.BudgetTokens, Model: o.Model, SubagentProvider: o.SubagentProvider,
		ResumeFromRunId: o.ResumeFromRunId, Background: o.Background, OnEvent: o.OnEvent,
	}, nil
}

// Start starts a loop on eng and returns its run; Decode reads its result.
func Start(ctx context.Context, eng *engine.Engine, o Options) (*engine.Run, error) {
	req, err := Request(o)
	if err != nil {
		return nil, err
	}
	return eng.Start(ctx, req)
}

// Run runs a loop to its end. A loop that ended complete, blocked or
// budget-limited returns its Result and nil; round-failed returns the
// Result and a *RoundFailedError; a run that did not complete (cancelled,
// timed out, a pre-check) returns the run's error.
func Run(ctx context.Context, eng *engine.Engine, o Options) (Result, error) {
	r, err := Start(ctx, eng, o)
	if err != nil {
		return Result{Workflow: engine.FailedResult("", err)}, err
	}
	return Decode(r.Wait())
}

// Decode reads a loop's result from its run's WorkflowResult, with the
// error Run returns.
func Decode(res engine.WorkflowResult) (Result, error) {
	out := Result{RunID: res.RunID, Workflow: res}
	if res.StopReason != engine.StopCompleted {
		return out, res.Err()
	}
	if err := json.Unmarshal(res.Value, &out); err != nil {
		return out, wferr.Wrap(wferr.Internal, err, "wfrun bug: the Ralph loop returned %s: %v", res.Value, err)
	}
	out.RunID, out.Workflow = res.RunID, res
	if out.Ending == EndRoundFailed {
		return out, &RoundFailedError{RunID: res.RunID, Round: out.Round, Reason: out.Reason, LastHandoff: out.Handoff}
	}
	return out, nil
}
