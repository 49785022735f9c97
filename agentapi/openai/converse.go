package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/internal/wferr"
)

// This file is the continued child (agentapi.Conversational): the same
// conversation as a one-shot child's, kept across turns. Each Turn adds
// the parent's message as a user message and runs the agent loop of
// conversation.go until an answer, with the turn limit, the schema
// retries and the context window of one child; the turn's Result carries
// the turn's usage and notes. The history between turns is the
// conversation's messages; Snapshot writes them, with what the loop needs
// to go on (the schema mode, the tool call numbering, the sizes of elided
// tool results, the worktree), and Converse reads them back. The settings
// (persona, model, effort, tools) are worked out again from the request
// when a child is resumed: a resumed child gets the tools available now.

// snapshotVersion is the version of the snapshot format this file writes
// and reads.
const snapshotVersion = 1

// snapshot is a continued child's saved state.
type snapshot struct {
	V        int                              `json:"v"`
	Messages []goopenai.ChatCompletionMessage `json:"messages"`
	ToolMode bool                             `json:"toolMode,omitempty"`
	CallNo   int                              `json:"callNo,omitempty"`
	Sizes    map[string]int                   `json:"toolResultSizes,omitempty"`
	Worktree *worktreeState                   `json:"worktree,omitempty"`
}

// worktreeState is where an isolated continued child works.
type worktreeState struct {
	Path   string `json:"path"`
	Branch string `json:"branch"`
	Base   string `json:"base"` // the commit it started from
}

var _ agentapi.Conversational = (*Provider)(nil)

// Converse sets up a continued child, or resumes one from its snapshot.
// It fails as Run would for the same request (an unknown persona, a
// worktree that cannot be made), and for a history this provider did not
// write or a worktree that is gone.
func (p *Provider) Converse(ctx context.Context, creq agentapi.ConversationRequest) (agentapi.Conversation, error) {
	var snap *snapshot
	if len(bytes.TrimSpace(creq.History)) > 0 {
		s, err := readSnapshot(creq.History)
		if err != nil {
			return nil, err
		}
		snap = s
	}
	req := creq.Request
	req.Prompt = ""
	c, err := p.newConversation(ctx, req, setup{extra: creq.Tools, dir: creq.Dir, snap: snap})
	if err != nil {
		return nil, err
	}
	c.baseNotes = slices.Clone(c.notes)
	return &continued{c: c}, nil
}

// readSnapshot reads a continued child's saved state.
func readSnapshot(data json.RawMessage) (*snapshot, error) {
	var s snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, wferr.Wrap(wferr.AgentStart, err, "the saved history is not the openai provider's (%v), so the sub-agent cannot be resumed: start a new one", err)
	}
	if s.V != snapshotVersion {
		return nil, wferr.New(wferr.AgentStart, "the saved history is in version %d of the openai provider's format and this wfrun reads version %d: resume the sub-agent with the wfrun that saved it, or start a new one", s.V, snapshotVersion)
	}
	if len(s.Messages) == 0 || s.Messages[0].Role != goopenai.ChatMessageRoleSystem {
		return nil, wferr.New(wferr.AgentStart, "the saved history holds no conversation (it does not begin with the system prompt), so the sub-agent cannot be resumed: start a new one")
	}
	return &s, nil
}

// restore puts a saved history back.
func (c *conversation) restore(s *snapshot) {
	c.msgs = mendHistory(s.Messages)
	c.toolMode = c.toolMode || s.ToolMode
	c.callNo = s.CallNo
	c.ctxw.sizes = maps.Clone(s.Sizes)
}

// continued is a conversation kept across turns.
type continued struct {
	c      *conversation
	closed bool
}

// Turn runs one turn: the message, then the agent loop until an answer.
// Result.Worktree names the child's worktree while it has one.
func (k *continued) Turn(ctx context.Context, message string) (agentapi.Result, error) {
	c := k.c
	if k.closed {
		return agentapi.Result{}, fmt.Errorf("openai: a turn was asked of a closed conversation")
	}
	c.usage = agentapi.Usage{}
	c.notes = slices.Clone(c.baseNotes)
	c.ctxw.elided, c.ctxw.cut, c.ctxw.trimmed = 0, 0, false
	c.add(userMessage(message))
	res, err := c.run(ctx)
	if c.worktree != nil {
		res.Worktree = &agentapi.Worktree{Path: c.worktree.Path(), Branch: c.worktree.Branch()}
	}
	c.tr.end(res, err)
	return res, err
}

// Snapshot returns the history and what the loop needs to go on.
func (k *continued) Snapshot() (json.RawMessage, error) {
	c := k.c
	s := snapshot{V: snapshotVersion, Messages: c.msgs, ToolMode: c.toolMode, CallNo: c.callNo, Sizes: c.ctxw.sizes}
	if c.worktree != nil {
		s.Worktree = &worktreeState{Path: c.worktree.Path(), Branch: c.worktree.Branch(), Base: c.worktree.Base()}
	}
	return json.Marshal(s)
}

// Close closes the built-in tools and the transcript. Without keep it
// ends the worktree as a one-shot child's is ended.
func (k *continued) Close(ctx context.Context, keep bool) *agentapi.Worktree {
	if k.closed {
		return nil
	}
	k.closed = true
	c := k.c
	var wt *agentapi.Worktree
	if keep {
		if c.builtin != nil {
			_ = c.builtin.Close()
			c.builtin = nil
		}
		c.worktree = nil // it stays on disk, for the next process
	} else {
		wt = c.leaveWorkplace(context.WithoutCancel(ctx))
	}
	c.tr.closeFile()
	return wt
}
