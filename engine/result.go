package engine

import (
	"encoding/json"
	"errors"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/internal/wferr"
	"github.com/wfrun/wfrun/runtime"
)

// StopReason says how a run ended.
type StopReason string

// The stop reasons: completed and cancelled are the words of a child's
// outcome (agentapi.Status) and of the run's status.
const (
	StopCompleted            = StopReason(agentapi.StatusCompleted)
	StopCancelled            = StopReason(agentapi.StatusCancelled)
	StopError     StopReason = "error"
)

// RunStatus is the status of a run that settled with stop reason r: a run
// that stopped with "error" is "failed".
func (r StopReason) RunStatus() RunStatus {
	switch r {
	case StopCompleted:
		return RunCompleted
	case StopCancelled:
		return RunCancelled
	}
	return RunFailed
}

// AgentCounts tallies how a run's children ended. Like Event and Usage it is
// an alias: the engine re-exports the types of the packages below it rather
// than copying them, so one definition (and one doc) serves both names.
type AgentCounts = runtime.Counts

// Usage is what a run's children consumed, summed: an alias of
// agentapi.Usage.
type Usage = agentapi.Usage

// KeptWorktree is a worktree an isolated child left behind: its agent id,
// path and branch (an alias of runtime.KeptWorktree).
type KeptWorktree = runtime.KeptWorktree

// WorkflowResult is how a run settled: one JSON object (docs/cli.md, "Output").
// Error and ErrorCode are set exactly when StopReason is not completed.
type WorkflowResult struct {
	RunID string `json:"runId"`
	// Value is the script's return value as JSON ("null" when the run did
	// not complete or returned undefined).
	Value         json.RawMessage `json:"value"`
	StopReason    StopReason      `json:"stopReason"`
	Error         string          `json:"error,omitempty"`
	ErrorCode     ErrorCode       `json:"errorCode,omitempty"`
	ErrorLine     int             `json:"errorLine,omitempty"`
	ErrorColumn   int             `json:"errorColumn,omitempty"`
	AgentsSpawned int             `json:"agentsSpawned"`
	Agents        AgentCounts     `json:"agents"`
	Usage         Usage           `json:"usage"`
	// Worktrees are the git worktrees isolated children left behind with
	// their changes (isolation: 'worktree'), in the order they ended.
	Worktrees  []KeptWorktree `json:"worktrees,omitempty"`
	DurationMs int64          `json:"durationMs"`
	Warnings   []string       `json:"warnings,omitempty"`
}

// Err returns the run's error as an *Error, or nil when it completed.
func (r WorkflowResult) Err() error {
	if r.StopReason == StopCompleted {
		return nil
	}
	return &wferr.Error{Code: r.ErrorCode, Message: r.Error, Line: r.ErrorLine, Column: r.ErrorColumn}
}

// summary is WorkflowResult without its value: the payload of run.end. Its
// own Value field, always nil, hides the embedded one from encoding/json.
type summary struct {
	WorkflowResult
	Value json.RawMessage `json:"value,omitempty"`
}

func (r WorkflowResult) summary() summary { return summary{WorkflowResult: r} }

var nullJSON = json.RawMessage("null")

// FailedResult renders an error (typically a failed pre-check returned by
// Start) as a WorkflowResult with stopReason "error" (or "cancelled" for
// CANCELLED) and no agents spawned. An empty runID gets a fresh run id, so
// that every result names a run.
func FailedResult(runID string, err error) WorkflowResult {
	if runID == "" {
		runID = NewRunID()
	}
	res := WorkflowResult{RunID: runID, Value: nullJSON}
	res.setError(err)
	return res
}

func (r *WorkflowResult) setError(err error) {
	var e *wferr.Error
	if !errors.As(err, &e) {
		e = wferr.Wrap(wferr.Internal, err, "%v", err)
	}
	r.StopReason = StopError
	if e.Code == wferr.Cancelled {
		r.StopReason = StopCancelled
	}
	r.Error, r.ErrorCode, r.ErrorLine, r.ErrorColumn = e.Message, e.Code, e.Line, e.Column
	r.Value = nullJSON
}
