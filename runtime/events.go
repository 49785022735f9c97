package runtime

import (
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/meta"
)

// EventType names an event of a run's stream (docs/cli.md, "Events").
type EventType string

// The event types, in the order a run emits them.
const (
	EventRunStart   EventType = "run.start"
	EventPhase      EventType = "phase"
	EventLog        EventType = "log"
	EventAgentStart EventType = "agent.start"
	EventAgentEnd   EventType = "agent.end"
	EventRunEnd     EventType = "run.end"
)

// Event is one line of a run's event stream. Which fields are set depends on
// Type; the JSON form leaves the others out.
//
// Invariants: run.start comes first and run.end last; every agent.start has
// exactly one agent.end with the same AgentID, and all of them come before
// run.end, also on cancellation, timeout and crash.
type Event struct {
	Type  EventType `json:"type"`
	RunID string    `json:"runId"`
	Time  time.Time `json:"time"`

	// run.start
	Meta     *meta.WorkflowMeta `json:"meta,omitempty"`
	Warnings []string           `json:"warnings,omitempty"`
	// Concurrency is the run's number of slots: at no point do more
	// children run at once (a timeline has this many rows).
	Concurrency int `json:"concurrency,omitempty"`

	// phase
	Title string `json:"title,omitempty"`

	// log
	Message string `json:"message,omitempty"`

	// agent.start and agent.end
	AgentID string `json:"agentId,omitempty"`
	Seq     int    `json:"seq,omitempty"`
	Label   string `json:"label,omitempty"`
	Phase   string `json:"phase,omitempty"`
	Model   string `json:"model,omitempty"`

	// agent.end
	Outcome    agentapi.Status      `json:"outcome,omitempty"`
	Failure    agentapi.FailureKind `json:"failure,omitempty"`
	Error      string               `json:"error,omitempty"`
	Note       string               `json:"note,omitempty"` // the provider's remark, e.g. "max_turns reached"
	Usage      *agentapi.Usage      `json:"usage,omitempty"`
	DurationMs *int64               `json:"durationMs,omitempty"`
	// Worktree is where an isolated child left its changes (kept worktree).
	Worktree *agentapi.Worktree `json:"worktree,omitempty"`

	// agent.start and agent.end of a child a resumed run answered from its
	// journal: the pair comes back to back, costs nothing (zero usage and
	// duration) and holds no slot.
	Replayed bool `json:"replayed,omitempty"`

	// run.end: the WorkflowResult without its value (filled in by package engine).
	Result any `json:"result,omitempty"`
}
