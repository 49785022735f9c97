// Package acp is wfrun's provider for external agents that speak the Agent
// Client Protocol (ACP, https://agentclientprotocol.com): Claude Code, Codex,
// Gemini CLI and others through their ACP adapters. It is built on
// github.com/coder/acp-go-sdk; wfrun is the client, the agent the server,
// JSON-RPC over the agent's stdin and stdout.
//
// # One process, one session per child
//
// Each Run starts the agent's program afresh, in a process group of its
// own, calls initialize and session/new with the child's root as cwd (the
// workspace, or the child's git worktree under isolation: 'worktree'),
// sends the prompt as the one user turn (session/prompt) and takes the
// agent's final message as the answer: the text of its agent_message_chunks
// after its last tool call (or, when the agent sends message ids, of its
// last message). Then it closes the agent's stdin and waits for the
// process group to be gone. An ACP agent could host many sessions, but a
// process per child is what lets a cancelled child be killed without its
// siblings, keeps a crash to one child, and shares nothing between
// children; what a start costs (about 5 ms for a Go agent, more for a
// Node.js adapter) is small beside a child's work.
//
// # Structured output
//
// ACP has no structured output, so a schema call does what the command
// provider does: the prompt ends with "Answer with only a JSON value that
// satisfies this JSON Schema…" and the schema, the answer is stripped of a
// Markdown fence and validated with agentapi/schema. A mismatch gets one
// more turn in the same session, with the validation error; a second
// mismatch fails the child with invalid_output.
//
// # Cancellation
//
// When the child's context ends (the run is cancelled, a deadline passes),
// the agent is sent session/cancel and has Agent.KillGrace (2s) to end its
// turn; then, or at once if it does, its process group is killed. Run
// returns after the group is gone and every goroutine of the connection has
// ended. Permission requests after session/cancel are answered "cancelled",
// as ACP asks.
//
// # What the agent may touch
//
// wfrun answers what the agent asks of its client, for the child, from the
// workspace and its sandbox mode (agentapi/workspace); nobody is asked:
//
//   - session/request_permission (permission.go): read, search, think and
//     fetch are allowed; edit, delete and move where the mode can write and
//     the call names its files; execute, switch_mode and anything else only
//     in danger-full-access. Every file a call names must resolve inside the
//     child's root. The option chosen is allow_once (else allow_always), or
//     reject_once (else reject_always); with neither, "cancelled".
//   - fs/read_text_file and fs/write_text_file (files.go): paths confined
//     with workspace.Resolve, files opened through os.Root; writes only
//     where the mode can write (the client does not even offer them in
//     read-only).
//   - terminal/* (terminal.go): offered only where the workspace's sandbox
//     can confine commands (workspace.Confine: namespaces and Landlock in
//     read-only and workspace-write, none in danger-full-access); each command runs in
//     the child's root, in a process group of its own, with a minimal
//     environment, and is stopped when the child ends.
//
// The agent's own process is not under wfrun's sandbox: what it does with
// its own tools, without asking, is the agent's (and its own sandbox's)
// concern. wfrun confines what it serves and what it allows.
//
// # Capabilities and options
//
// Every ACP agent gets outputSchema and isolation. ACP has no way to narrow
// an agent's tools, give it a persona or limit its turns, so toolFilter,
// persona and maxTurns are false and scripts get UNSUPPORTED_OPTION.
// Model and effort go through the session's config options (categories
// "model" and "thought_level") — but not every agent offers them, so they
// are true only when the agent's configuration declares them; depthLimit
// is a declared promise too. A call's own model or effort the session
// cannot take is UNSUPPORTED_OPTION from Run; a model that is only the run's
// default is left to the agent, with a note.
//
// # Usage
//
// Tokens come from session/prompt's usage when the agent reports it (an
// unstable part of ACP), summed over the turns; otherwise they are
// estimated as ceil(bytes/4) of the prompts and the agent's text, with a
// note. Cost is the last usage_update's cumulative cost in USD.
//
// # Configuration and errors
//
// Config names one agent and its workspace; ParseAgentFlag reads the CLI's
// --acp-agent 'NAME=CMD ARGS…' and Parse the --acp-config file
// {"agents": {NAME: {command, args, env, passEnv, killGrace,
// capabilities}}}; the provider of NAME is "acp:NAME". Run returns an error
// (AGENT_START) when the agent cannot be used at all: its program is
// missing, it does not answer initialize within StartTimeout, speaks another
// protocol version, or wants a login. A process that dies during its turn,
// an error answer, a refusal or a turn limit fails the child.
//
// # Place
//
// The package belongs to agentapi's provider layer: it imports agentapi,
// agentapi/schema, agentapi/workspace, agentapi/internal/proc (process
// groups, shared with the command provider), internal/wferr, internal/human
// and the SDK,
// never runtime, engine, sandbox or cmd. A Provider is immutable after New
// apart from its compiled-schema cache and is safe for concurrent use. It
// needs a Unix system (process groups).
package acp
