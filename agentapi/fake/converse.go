package fake

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/wfrun/wfrun/agentapi"
)

// The fake's continued child (agentapi.Conversational). Each turn is
// answered exactly as Run answers a child whose prompt is the turn's
// message: the rules match the message, a text turn without a rule
// echoes it, and a schema turn gets the schema's smallest value. The
// history is the messages and the answers, in order, which Snapshot saves
// and Converse reads back; it changes no answer, so that a resumed child
// answers as a fresh one would, but tests can read it.

// Message is one entry of a fake conversation's history: the parent's
// message ("user") or the child's answer ("assistant").
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// History is a fake conversation's snapshot.
type History struct {
	V        int       `json:"v"`
	Messages []Message `json:"messages"`
}

// historyVersion is the snapshot format's version.
const historyVersion = 1

var _ agentapi.Conversational = (*Provider)(nil)

// Converse starts a fake continued child, or resumes one from its history.
// It fails when the provider is misconfigured, the persona is not one the
// provider knows (CheckPersona), or the history is not a fake one.
func (p *Provider) Converse(_ context.Context, creq agentapi.ConversationRequest) (agentapi.Conversation, error) {
	if p.err != nil {
		return nil, p.err
	}
	if creq.Persona != "" {
		if err := p.CheckPersona(creq.Persona); err != nil {
			return nil, err
		}
	}
	c := &conversation{p: p, req: creq.Request}
	if len(bytes.TrimSpace(creq.History)) > 0 {
		var h History
		if err := json.Unmarshal(creq.History, &h); err != nil || h.V != historyVersion {
			return nil, fmt.Errorf("fake: the saved history is not a fake conversation of version %d (%v); start a new sub-agent", historyVersion, err)
		}
		c.msgs = h.Messages
	}
	return c, nil
}

// conversation is one fake continued child.
type conversation struct {
	p    *Provider
	req  agentapi.Request
	msgs []Message
}

// Turn answers message as Run would answer it as a prompt, and records
// both in the history (the answer only when the turn completed).
func (c *conversation) Turn(ctx context.Context, message string) (agentapi.Result, error) {
	req := c.req
	req.Prompt = message
	c.msgs = append(c.msgs, Message{Role: "user", Content: message})
	res, err := c.p.Run(ctx, req)
	if err == nil && res.Status == agentapi.StatusCompleted {
		answer := res.Text
		if res.Output != nil {
			answer = string(res.Output)
		}
		c.msgs = append(c.msgs, Message{Role: "assistant", Content: answer})
	}
	return res, err
}

// Snapshot returns the history as a History.
func (c *conversation) Snapshot() (json.RawMessage, error) {
	msgs := c.msgs
	if msgs == nil {
		msgs = []Message{}
	}
	return json.Marshal(History{V: historyVersion, Messages: msgs})
}

// Close holds nothing to release: a fake child has no worktree.
func (c *conversation) Close(context.Context, bool) *agentapi.Worktree { return nil }
