package trace

import (
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// The GenAI attributes come from the semantic conventions of semconv
// v1.41.0, the last release of the main conventions that holds them (they
// moved to a repository of their own afterwards). SchemaURL names that
// version on every span of this package.
const SchemaURL = semconv.SchemaURL

// The workflow's own attributes, under the wfrun. prefix. Which span
// carries which is listed in docs/observability.md.
const (
	AttrRunID       = attribute.Key("wfrun.run.id")      // every span: "wf_…"
	AttrMetaName    = attribute.Key("wfrun.meta.name")   // run: meta.name
	AttrParent      = attribute.Key("wfrun.parent")      // run: the agent that owns the run
	AttrProvider    = attribute.Key("wfrun.provider")    // run: the provider of its children
	AttrConcurrency = attribute.Key("wfrun.concurrency") // run: its number of slots
	AttrStopReason  = attribute.Key("wfrun.stop_reason") // run: completed, cancelled or error
	AttrErrorCode   = attribute.Key("wfrun.error.code")  // run: the error code, when not completed

	AttrAgentsSpawned   = attribute.Key("wfrun.agents.spawned")   // run: accepted agent() calls
	AttrAgentsCompleted = attribute.Key("wfrun.agents.completed") // run
	AttrAgentsFailed    = attribute.Key("wfrun.agents.failed")    // run
	AttrAgentsTimedOut  = attribute.Key("wfrun.agents.timed_out") // run
	AttrAgentsCancelled = attribute.Key("wfrun.agents.cancelled") // run

	// The run's totals. They are not gen_ai.usage.*, which the agent spans
	// carry: a backend that sums those would count every token twice.
	AttrInputTokens  = attribute.Key("wfrun.usage.input_tokens")  // run
	AttrOutputTokens = attribute.Key("wfrun.usage.output_tokens") // run
	AttrCostUSD      = attribute.Key("wfrun.usage.cost_usd")      // run and agent

	AttrPhase          = attribute.Key("wfrun.phase")           // phase and agent: the phase title
	AttrAgentID        = attribute.Key("wfrun.agent.id")        // agent: "ag_…"
	AttrSeq            = attribute.Key("wfrun.agent.seq")       // agent: 1-based order of its agent() call
	AttrLabel          = attribute.Key("wfrun.agent.label")     // agent: the call's label
	AttrPersona        = attribute.Key("wfrun.agent.persona")   // agent: agentType, when given
	AttrOutcome        = attribute.Key("wfrun.agent.outcome")   // agent: completed, failed, timed_out or cancelled
	AttrNote           = attribute.Key("wfrun.agent.note")      // agent: the provider's remark
	AttrWorktreePath   = attribute.Key("wfrun.worktree.path")   // agent: where an isolated child left its changes
	AttrWorktreeBranch = attribute.Key("wfrun.worktree.branch") // agent: the branch of that worktree
)

// The GenAI operation names of the spans this package starts.
const (
	OperationWorkflow = "invoke_workflow" // the run
	OperationAgent    = "invoke_agent"    // a child
)
