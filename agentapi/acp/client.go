package acp

import (
	"context"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"
)

// client is wfrun's side of one child's connection: what the agent may ask
// of the client, answered for the child. The SDK calls SessionUpdate on
// one goroutine, in the order the notifications arrived, and every request
// method on a goroutine of its own, so each touches the child's state under
// its mutex.
type client struct{ c *child }

var _ sdk.Client = (*client)(nil)

// SessionUpdate follows the agent's turn: its message chunks make the final
// message, its tool calls start a new one and are remembered for
// permission requests, and usage and config option updates are kept.
// Everything else (thoughts, plans, commands, modes) is not wfrun's concern.
func (k *client) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c := k.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sid != "" && n.SessionId != c.sid {
		return nil // not this child's session: ignore it
	}
	switch u := n.Update; {
	case u.AgentMessageChunk != nil:
		if t := u.AgentMessageChunk.Content.Text; t != nil {
			c.msg.add(u.AgentMessageChunk.MessageId, t.Text)
			c.agentBytes += len(t.Text)
		}
	case u.ToolCall != nil:
		c.msg.afterTool = true
		c.remember(u.ToolCall.ToolCallId, &u.ToolCall.Kind, u.ToolCall.Locations)
	case u.ToolCallUpdate != nil:
		c.msg.afterTool = true
		c.remember(u.ToolCallUpdate.ToolCallId, u.ToolCallUpdate.Kind, u.ToolCallUpdate.Locations)
	case u.UsageUpdate != nil:
		if u.UsageUpdate.Cost != nil {
			cost := *u.UsageUpdate.Cost
			c.cost = &cost
		}
	case u.ConfigOptionUpdate != nil:
		c.options = u.ConfigOptionUpdate.ConfigOptions
	}
	return nil
}

// remember records what a tool call notification says of the call; the
// caller holds c.mu.
func (c *child) remember(id sdk.ToolCallId, kind *sdk.ToolKind, locs []sdk.ToolCallLocation) {
	if c.calls == nil {
		c.calls = map[sdk.ToolCallId]toolCall{}
	}
	tc := c.calls[id]
	if kind != nil && *kind != "" {
		tc.kind = *kind
	}
	if len(locs) > 0 {
		tc.locations = locs
	}
	c.calls[id] = tc
}

// RequestPermission answers from the run's sandbox mode (permission.go);
// nobody is asked. Once session/cancel was sent, every request is answered
// "cancelled", as the protocol asks of a client.
func (k *client) RequestPermission(_ context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	if !k.c.handling() {
		return sdk.RequestPermissionResponse{}, errEnded
	}
	defer k.c.handled()
	c := k.c
	if c.cancelling.Load() {
		return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}}, nil
	}
	c.mu.Lock()
	tc := c.calls[p.ToolCall.ToolCallId]
	c.mu.Unlock()
	// The request's own fields win: the tool_call notification may not
	// have been handled yet, since requests do not wait for notifications.
	if p.ToolCall.Kind != nil && *p.ToolCall.Kind != "" {
		tc.kind = *p.ToolCall.Kind
	}
	if len(p.ToolCall.Locations) > 0 {
		tc.locations = p.ToolCall.Locations
	}
	paths := make([]string, 0, len(tc.locations))
	for _, l := range tc.locations {
		paths = append(paths, l.Path)
	}
	d := decide(c.ws, tc.kind, paths)
	title := string(tc.kind)
	if p.ToolCall.Title != nil && *p.ToolCall.Title != "" {
		title = *p.ToolCall.Title
	}
	outcome := choose(p.Options, d.allow)
	if !d.allow {
		c.mu.Lock()
		c.refusals++
		if len(c.refused) < shownRefusals {
			c.refused = append(c.refused, excerpt(title, 80)+": "+d.reason)
		}
		c.mu.Unlock()
	}
	return sdk.RequestPermissionResponse{Outcome: outcome}, nil
}

// ReadTextFile serves fs/read_text_file inside the child's root (files.go).
func (k *client) ReadTextFile(_ context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	if !k.c.handling() {
		return sdk.ReadTextFileResponse{}, errEnded
	}
	defer k.c.handled()
	if err := k.c.ownSession(p.SessionId); err != nil {
		return sdk.ReadTextFileResponse{}, err
	}
	content, err := k.c.readFile(p.Path, p.Line, p.Limit)
	if err != nil {
		return sdk.ReadTextFileResponse{}, err
	}
	return sdk.ReadTextFileResponse{Content: content}, nil
}

// WriteTextFile serves fs/write_text_file inside the child's root, where
// the sandbox mode lets the child write (files.go).
func (k *client) WriteTextFile(_ context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	if !k.c.handling() {
		return sdk.WriteTextFileResponse{}, errEnded
	}
	defer k.c.handled()
	if err := k.c.ownSession(p.SessionId); err != nil {
		return sdk.WriteTextFileResponse{}, err
	}
	return sdk.WriteTextFileResponse{}, k.c.writeFile(p.Path, p.Content)
}

// CreateTerminal starts a command in a sandboxed terminal (terminal.go).
func (k *client) CreateTerminal(ctx context.Context, p sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	if !k.c.handling() {
		return sdk.CreateTerminalResponse{}, errEnded
	}
	defer k.c.handled()
	if err := k.c.ownSession(p.SessionId); err != nil {
		return sdk.CreateTerminalResponse{}, err
	}
	id, err := k.c.createTerminal(p)
	return sdk.CreateTerminalResponse{TerminalId: id}, err
}

// TerminalOutput returns a terminal's output so far (terminal.go).
func (k *client) TerminalOutput(_ context.Context, p sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	if !k.c.handling() {
		return sdk.TerminalOutputResponse{}, errEnded
	}
	defer k.c.handled()
	t, err := k.c.terminal(p.SessionId, p.TerminalId)
	if err != nil {
		return sdk.TerminalOutputResponse{}, err
	}
	return t.output(), nil
}

// WaitForTerminalExit waits for a terminal's command to exit (terminal.go).
func (k *client) WaitForTerminalExit(ctx context.Context, p sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	if !k.c.handling() {
		return sdk.WaitForTerminalExitResponse{}, errEnded
	}
	defer k.c.handled()
	t, err := k.c.terminal(p.SessionId, p.TerminalId)
	if err != nil {
		return sdk.WaitForTerminalExitResponse{}, err
	}
	return t.wait(ctx)
}

// KillTerminal stops a terminal's command and keeps its output (terminal.go).
func (k *client) KillTerminal(_ context.Context, p sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	if !k.c.handling() {
		return sdk.KillTerminalResponse{}, errEnded
	}
	defer k.c.handled()
	t, err := k.c.terminal(p.SessionId, p.TerminalId)
	if err != nil {
		return sdk.KillTerminalResponse{}, err
	}
	t.kill()
	return sdk.KillTerminalResponse{}, nil
}

// ReleaseTerminal stops a terminal's command and forgets it (terminal.go).
func (k *client) ReleaseTerminal(_ context.Context, p sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	if !k.c.handling() {
		return sdk.ReleaseTerminalResponse{}, errEnded
	}
	defer k.c.handled()
	if _, err := k.c.terminal(p.SessionId, p.TerminalId); err != nil {
		return sdk.ReleaseTerminalResponse{}, err
	}
	k.c.releaseTerminal(p.TerminalId)
	return sdk.ReleaseTerminalResponse{}, nil
}

// errEnded answers a request that arrives after the child has ended.
var errEnded = &sdk.RequestError{Code: codeInvalidParams, Message: "the wfrun child this session belongs to has ended"}

// ownSession refuses a request for another session than the child's.
func (c *child) ownSession(id sdk.SessionId) error {
	c.mu.Lock()
	sid := c.sid
	c.mu.Unlock()
	if sid != "" && id != sid {
		return refusal("the session %q is not this client's session %q", id, sid)
	}
	return nil
}

// refusal is a JSON-RPC error whose message is the sentence the agent (and
// its model) sees.
func refusal(format string, args ...any) *sdk.RequestError {
	return &sdk.RequestError{Code: codeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// codeInvalidParams is JSON-RPC's "invalid params": the request cannot be
// served as asked.
const codeInvalidParams = -32602
