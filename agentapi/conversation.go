package agentapi

import (
	"context"
	"encoding/json"
)

// Conversational is implemented by a provider whose children can be
// continued: a child is a conversation that persists across turns, whose
// state can be saved between turns and resumed later, in another process.
// The host (engine/subagent) keeps the saved state; the provider only
// produces and reads it. Run, the one-shot path, is not affected.
type Conversational interface {
	Provider
	// Converse sets up a conversation for req, or resumes the one saved in
	// req.History. No turn runs: the child's task is its first message,
	// given to Turn like every later one. An error means the provider is
	// broken or cannot honour the request (an unknown persona, isolation
	// without a repository, a history it cannot read); nothing is left
	// behind.
	Converse(ctx context.Context, req ConversationRequest) (Conversation, error)
}

// ConversationRequest is a continuable child as the host asks for it.
type ConversationRequest struct {
	// Request is the child's settings: AgentID names it (its worktree,
	// its files) and must stay the same when it is resumed; Schema, when
	// set, is what every turn's answer must satisfy; Timeout and MaxTurns
	// apply to each turn. Prompt is not used: every message, the first
	// included, is given to Turn.
	Request
	// Tools are the host's tools for this child alone (its own sub-agent
	// tools), offered beside the provider's own and narrowed the same
	// way, by persona and by Request.Tools. nil offers none.
	Tools Toolbox
	// Dir, when not empty, is a folder of this child's own in which the
	// provider may keep files (a transcript), appending to them when the
	// child is resumed.
	Dir string
	// History is what Conversation.Snapshot returned, to resume that
	// conversation; nil starts a new one.
	History json.RawMessage
}

// Conversation is one continuable child. Its methods are called one at a
// time (the host serialises them); between two of them it holds no
// goroutine.
type Conversation interface {
	// Turn adds message to the conversation as the parent's next message
	// and runs the child until it answers. The Result is this turn's, with
	// this turn's usage. When ctx ends first the turn ends cancelled (or
	// timed_out) and the conversation stays usable: what the turn added so
	// far stays in its history, and the next message follows it. An error
	// means the provider is broken; the host then closes the conversation.
	Turn(ctx context.Context, message string) (Result, error)
	// Snapshot returns the conversation's state as JSON, in a versioned
	// format of the provider's, for ConversationRequest.History. It is
	// called between turns.
	Snapshot() (json.RawMessage, error)
	// Close releases what the conversation holds (tool processes, open
	// files). With keep, an isolated child's worktree stays where it is,
	// for a later resume from the last snapshot; without, the child is over
	// and its worktree is ended like a one-shot child's (removed when
	// unchanged), and returned when it is kept. ctx is used even after it
	// is cancelled, with a bound of the provider's.
	Close(ctx context.Context, keep bool) *Worktree
}
