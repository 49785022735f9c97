package agentapi

import (
	"context"
	"encoding/json"
	"time"
)

// Request is one child's task, as the script asked for it.
type Request struct {
	RunID   string // the run that owns the child ("wf_…")
	AgentID string // unique within the process ("ag_…")
	Seq     int    // 1-based order of the agent() call within the run
	Parent  string // the agent that owns the run (WorkflowStartRequest.Parent)

	Prompt string
	Label  string
	Phase  string

	// Schema is the JSON Schema the answer must satisfy, or nil for a text
	// answer. The run side has checked that it compiles and has an object root.
	// Its JSON form leaves it out when nil: a null would come back as a
	// schema.
	Schema json.RawMessage `json:",omitempty"`

	Model     string        // "" = the provider's default (or the run's meta.model, already applied)
	Effort    string        // "" = default; provider-defined levels such as low, medium, high
	Persona   string        // agentType / persona name; "" = the provider's default worker
	Tools     []string      // nil = the provider's default set; non-nil narrows it, never widens
	MaxTurns  int           // 0 = the provider's default
	Isolation string        // "" = default; provider-defined (e.g. "worktree")
	Timeout   time.Duration // 0 = none beyond ctx; the run side also puts it on ctx

	// ModelDefaulted says that Model is not the call's own but the run's
	// default for it (its phase's model or meta.model). A persona's model
	// then wins over it, while a call's own model wins over the persona's.
	ModelDefaulted bool
}

// Status is how a child ended. It is the `outcome` of an agent.end event.
type Status string

// The statuses of a finished child.
const (
	StatusCompleted Status = "completed"
	StatusFailed    Status = "failed"
	StatusTimedOut  Status = "timed_out"
	StatusCancelled Status = "cancelled"
)

// Valid reports whether s is one of the four statuses.
func (s Status) Valid() bool {
	switch s {
	case StatusCompleted, StatusFailed, StatusTimedOut, StatusCancelled:
		return true
	}
	return false
}

// FailureKind classifies a failed child, so that a caller can tell an
// unhealthy upstream from a task the model could not do.
type FailureKind string

// The failure kinds.
const (
	FailureUpstreamUnavailable FailureKind = "upstream_unavailable" // connection refused, DNS, "no healthy upstream"
	FailureRateLimited         FailureKind = "rate_limited"         // 429 after retries
	FailureContextLength       FailureKind = "context_length"       // the conversation no longer fits the model
	FailureTimeout             FailureKind = "timeout"              // the child's deadline passed
	FailureInvalidOutput       FailureKind = "invalid_output"       // the answer does not satisfy the schema
	FailureMaxTurns            FailureKind = "max_turns"            // the turn limit ended the child without an answer
	FailureTaskFailed          FailureKind = "task_failed"          // the model reported that it could not do the task
	FailureCancelled           FailureKind = "cancelled"            // the run was cancelled
)

// Usage is what a child consumed.
type Usage struct {
	InputTokens  int64 `json:"inputTokens"`
	OutputTokens int64 `json:"outputTokens"`
	CachedTokens int64 `json:"cachedTokens,omitempty"`
	// EstimatedTokens is the part of InputTokens that wfrun estimated
	// rather than read from the endpoint's counters: the prompt of a
	// request that was sent and then aborted (a deadline, a cancel), which
	// the endpoint processed but never reported. Budgets count it.
	EstimatedTokens int64   `json:"estimatedTokens,omitempty"`
	CostUSD         float64 `json:"costUSD"`
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		InputTokens:     u.InputTokens + v.InputTokens,
		OutputTokens:    u.OutputTokens + v.OutputTokens,
		CachedTokens:    u.CachedTokens + v.CachedTokens,
		EstimatedTokens: u.EstimatedTokens + v.EstimatedTokens,
		CostUSD:         u.CostUSD + v.CostUSD,
	}
}

// Tokens is input plus output tokens: what a token budget counts.
func (u Usage) Tokens() int64 { return u.InputTokens + u.OutputTokens }

// Result is how one child ended.
type Result struct {
	Status Status

	// Text is the final message of a completed text call.
	Text string
	// Output is the JSON answer of a completed schema call. The run side
	// validates it against the request's schema again; a mismatch turns the
	// child into a failure of kind invalid_output.
	Output json.RawMessage `json:",omitempty"`

	Failure FailureKind // set when Status is not completed
	Error   string      // a sentence saying why the child did not complete
	Note    string      // optional remark on a completed child (e.g. "max_turns reached")

	// Worktree is the git worktree an isolated child left behind because it
	// changed something (whatever its status); nil when it had none or the
	// worktree was removed.
	Worktree *Worktree

	Usage Usage
}

// Worktree is where an isolated child's work is: a branch, checked out at
// Path. Its JSON form is the `worktree` of agent.end and of the envelope.
type Worktree struct {
	Path   string `json:"path"`
	Branch string `json:"branch"`
}

// Provider runs sub-agents. Implementations must be safe for concurrent use.
type Provider interface {
	// Name is the registry key, e.g. "fake" or "openai".
	Name() string
	// Capabilities says which request options the provider honours.
	Capabilities() Capabilities
	// Run runs one child to completion. It returns an error only when the
	// provider itself is broken; a child that fails is a Result.
	Run(ctx context.Context, req Request) (Result, error)
}
