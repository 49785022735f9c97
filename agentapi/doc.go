// Package agentapi is the contract between a workflow run and the providers
// that run its sub-agents ("children").
//
// A Provider has a name, declares its Capabilities, and runs one child to
// completion under a context.Context. The run side (package runtime) builds a
// Request from an agent() call, checks it against the provider's
// capabilities with CheckOptions before anything starts, and turns the Result
// back into a script value.
//
// Two kinds of failure are kept apart on purpose:
//
//   - A child that failed at its task (the model gave up, timed out, returned
//     output that does not match the schema, was rate limited) is data: Run
//     returns a Result whose Status is not StatusCompleted and whose Failure
//     names the kind. The script sees null and goes on.
//   - An error returned by Run means the provider itself is broken or
//     misconfigured (no API key, a bug). The run fails with AGENT_START.
//
// A provider whose children can be continued across turns — a child that
// is a conversation the host keeps, saves between turns and resumes in
// another process — also implements Conversational (conversation.go);
// the one-shot Run is unchanged by it.
//
// Providers must honour ctx: when it is cancelled or its deadline passes they
// should return promptly (the run waits only a short grace for them, then
// drops the late result). A Provider is used by many goroutines at once.
//
// This package imports only the standard library and internal/human (how
// its sentences say counted nouns), a leaf. The providers live in
// sub-packages and bring their own client libraries: agentapi/fake (offline),
// agentapi/openai (OpenAI-compatible endpoints), agentapi/command (external
// agent CLIs), agentapi/acp (external agents over the Agent Client
// Protocol). Beside them: agentapi/schema validates structured output with
// a real JSON Schema validator; agentapi/mcptools is a Toolbox over MCP
// servers; agentapi/persona reads persona files, agentapi/modelmap maps model
// aliases; agentapi/workspace confines what children touch, and
// agentapi/tools is their built-in tool set. None of them imports runtime,
// engine, sandbox, meta or cmd (internal/testkit/layers tests it).
package agentapi
