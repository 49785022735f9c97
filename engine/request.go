package engine

import "encoding/json"

// WorkflowStartRequest asks for one run. Its JSON form is what the workflow
// tool and `wfrun --request` take; zero numeric fields mean the engine's
// defaults.
type WorkflowStartRequest struct {
	// Script is the workflow's JavaScript source.
	Script string `json:"script"`
	// ScriptName names the script in positions and stack traces ("script.js" if empty).
	ScriptName string `json:"scriptName,omitempty"`
	// Meta is the workflow's meta as data (the DSH dialect). If the script
	// also has `export const meta`, the two must be equal.
	Meta json.RawMessage `json:"meta,omitempty"`
	// FallbackMeta is the meta of a script that has none: it is used only
	// when neither Meta nor the script's `export const meta` gives one
	// (the command line names a DSH-dialect script's run after its file
	// this way). Check's MetaFallback says whether it was used.
	FallbackMeta json.RawMessage `json:"fallbackMeta,omitempty"`
	// Args is passed to the script verbatim as the global args.
	Args json.RawMessage `json:"args,omitempty"`
	// SubagentProvider overrides the engine's default provider for every child.
	SubagentProvider string `json:"subagentProvider,omitempty"`
	// MaxTotalAgents lowers (never raises) the engine's cap of agent() calls.
	MaxTotalAgents int `json:"maxTotalAgents,omitempty"`
	// Parent is the agent that owns every child of the run (required; the CLI uses "cli").
	Parent string `json:"parent"`

	// Model is the run's default model: it replaces meta.model, while a
	// phase's model and an agent() call's model option still win.
	Model string `json:"model,omitempty"`

	// Concurrency overrides the number of children that may run at once.
	Concurrency int `json:"concurrency,omitempty"`
	// TimeoutMs overrides the run's deadline.
	TimeoutMs int64 `json:"timeoutMs,omitempty"`
	// AgentTimeoutMs overrides the default timeout of each child.
	AgentTimeoutMs int64 `json:"agentTimeoutMs,omitempty"`
	// BudgetTokens overrides the run's token budget.
	BudgetTokens int64 `json:"budgetTokens,omitempty"`
	// MaxMemoryBytes lowers (never raises) the engine's memory budget of a run.
	MaxMemoryBytes int64 `json:"maxMemoryBytes,omitempty"`
	// MaxRunFolderBytes lowers (never raises) the engine's size budget of
	// a durable run's folder (Config.MaxRunFolder).
	MaxRunFolderBytes int64 `json:"maxRunFolderBytes,omitempty"`
	// Isolate asks for the run's script to execute in a child process
	// ("process"); it may raise the engine's isolation, never lower it.
	Isolate Isolation `json:"isolate,omitempty"`

	// Background says the caller will not wait for the run: it counts
	// against the owner's limit of background runs (Config.MaxBackgroundRuns).
	Background bool `json:"background,omitempty"`

	// ResumeFromRunId resumes an earlier run of this engine's runs folder:
	// the longest unchanged prefix of its finished agents is replayed from
	// its journal for free, and the rest runs live (docs/durability.md).
	// Without a script, the earlier run's request is used, with the fields
	// this one sets overriding it; a run that is still live is refused.
	ResumeFromRunId string `json:"resumeFromRunId,omitempty"`

	// OnEvent, if set, receives this run's events in addition to the
	// engine's sink (Go only).
	OnEvent func(Event) `json:"-"`
}
