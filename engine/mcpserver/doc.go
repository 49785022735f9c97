// Package mcpserver serves wfrun's tools (engine/tool) over the Model
// Context Protocol with the official Go SDK: workflow, agent, and the
// background tools workflow_status, workflow_wait, workflow_cancel and
// workflow_list. `wfrun mcp` only wires flags to it.
//
// Each MCP session gets its own tool.Set, with an owner of its own
// ("mcp-" and random hex): the runs it starts belong to that owner, and the
// engine's registry hides them from every other session. Options.Owner
// gives every session one fixed owner instead, so that a later session
// (after a restart, with a run ledger) still sees and resumes the runs;
// wfrun mcp does so on stdio, where a server has one session. When a session
// ends, its runs still going are cancelled, since nobody is left to wait
// for them. The owner is per session, so the server speaks the protocol
// versions that have sessions (up to 2025-11-25).
//
// During a foreground call that carries a progress token the server sends
// MCP progress notifications (phase, agents done/started, tokens, the
// latest log line), with a progress value that grows by one per
// notification. Cancelling the call
// (notifications/cancelled, or the client going away) cancels the call's
// context, which cancels the run and its sub-agents. Every finished run's
// full result is the resource wfrun://runs/<runId>/result (a resource
// template; only the session that owns the run can read it), which the
// truncation notice of a long value names.
//
// With Options.Subagents the server also serves the continuable
// sub-agent tools (subagent_start, …), each child as the resource
// wfrun://subagents/<childId> (readable and subscribable by its owner's
// sessions only), and the report of every ended turn as a
// resource-updated notification to its subscribers and a logging message
// (logger wfrun.subagents) to the owner's sessions (subagents.go). A
// session with an owner of its own closes its children when it ends; with
// Options.Owner they stay, for the next session.
//
// Transports: stdio (Server.Run with LineTransport, the default of wfrun
// mcp, which answers a line that is not a JSON-RPC message with a JSON-RPC
// error instead of ending the session as the SDK's stdio transport does),
// and streamable HTTP (Server.Handler, ServeHTTP); Start serves either,
// as an Endpoint names it, in the background (wfrun mcp, with StdioOwner
// on stdio), after Endpoint.Check. CheckBind
// refuses to serve HTTP on anything but a loopback address without a
// bearer token; with a token every request must carry it
// (Authorization: Bearer TOKEN) or gets 401.
//
// Goroutines: the SDK's per session, and one per session started here that
// waits for the session's end to cancel its runs; it ends with the session.
//
// Place: cmd → engine/mcpserver → engine/tool → engine. internal/testkit/layers
// holds the exact list of what it may import.
package mcpserver
