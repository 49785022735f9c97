// Package trace turns workflow runs into OpenTelemetry traces that follow
// the GenAI semantic conventions (docs/observability.md has every span
// name and attribute).
//
// A Tracer is an engine.Observer. Set it as engine.Config.Observer and
// every run becomes a tree of spans:
//
//	invoke_workflow NAME          the run (the root, or a child of the span in Start's context)
//	├── phase TITLE               one per phase title
//	│   └── invoke_agent LABEL    a child in that phase (its persona names it when it has one)
//	│       ├── chat MODEL        a provider's own spans: the openai provider's turns,
//	│       └── execute_tool NAME   and the tool calls of a turn
//	└── invoke_agent LABEL        a child outside any phase
//
// The spans are started and ended from the run's events and carry their
// times, so a trace and the event stream never disagree. The run's and the
// agents' spans live in the contexts the engine hands on (StartRun,
// StartChild): a provider sees its child's span in the context of Run, so
// the spans it starts are the agent's children and its requests can carry
// the trace context (the openai provider sends traceparent, the command
// provider sets TRACEPARENT in the child's environment). Prompts, answers
// and tool arguments are never recorded.
//
// Start builds a Tracer that exports over OTLP (HTTP/protobuf) in batches;
// Enabled says whether the flag or the OTEL_* variables ask for that. A
// program without an exporter configured installs no Tracer, and then a
// run does nothing it would not do without this package.
//
// Place: cmd → engine/trace → engine; nothing in engine, runtime or agentapi
// imports it. internal/testkit/layers holds the exact list of what it may import.
package trace
