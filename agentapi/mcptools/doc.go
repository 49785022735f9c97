// Package mcptools gives sub-agents the tools of MCP (Model Context
// Protocol) servers. It reads the "mcpServers" config file that Claude
// Desktop, Claude Code and Cursor use, starts or dials every server with the
// official Go SDK (github.com/modelcontextprotocol/go-sdk), and offers their
// tools as one agentapi.Toolbox. Providers that run a model loop (openai)
// show Tools to the model and route its tool calls to Call.
//
// The model, in one screen:
//
//   - Config → Toolbox. Load/Parse read and check the file; every
//     mistake is a *ConfigError naming the server and the field. New starts
//     the servers eagerly and in parallel: stdio servers as subprocesses
//     (their stdin/stdout carry MCP, their stderr is kept for error
//     messages), http servers over streamable HTTP, sse servers over the
//     older HTTP+SSE transport. Starting eagerly means a broken server
//     fails the run before any child starts, with an error (*ServerError)
//     that names the server and, for a program that exited, the end of its
//     stderr; and that no child's context ever governs a shared server.
//   - Tools are listed once, in New, and cached for the Toolbox's life;
//     Tools never contacts a server. A server that changes its tool list
//     later is not followed.
//   - Names. The model sees "mcp__SERVER__TOOL": each part has every
//     character outside [A-Za-z0-9_-] replaced by '_', and the whole is cut
//     to 64 bytes (MaxNameLen). When two tools end up with the same name the
//     later one (servers in name order, tools in their server's order) gets
//     "_2", "_3", … within the 64 bytes. Call maps the name back to the
//     server and its own tool name.
//   - Call results. Text content is returned as it is, other content as a
//     short description ("[image: image/png, 1234 bytes]"), parts joined by
//     newlines. Every error from Call is a tool failure for the model to see:
//     *ToolError (the tool ran and said it failed), *ServerError (the server
//     could not be reached or has gone), ErrUnknownTool, bad arguments, or
//     the caller's context ending. None of them ends the child.
//   - Close stops everything New started: it closes each session, closes a
//     stdio server's stdin and waits for it to exit (SIGTERM, then SIGKILL,
//     after 2s each if it does not), and releases HTTP connections. No
//     goroutine or process outlives Close. A server that dies during the run
//     is not restarted; calls to it fail with a *ServerError.
//
// A Toolbox is safe for concurrent use; calls to one server may be in flight
// at the same time. It holds no package-level state, so two engines may
// each have their own.
//
// Place in wfrun: cmd builds a Toolbox from --mcp-config and gives it to the
// provider; this package imports agentapi and the MCP SDK, never engine,
// runtime or sandbox. The test server it is tested against is
// internal/testkit/testmcp.
package mcptools
