package acp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/schema"
	"github.com/wfrun/wfrun/internal/wferr"
)

// message is the agent's final message of a turn, as it streams in: the
// text of the agent_message_chunks since the last tool call, or, when the
// agent sends message ids, the text of the last message id.
type message struct {
	text      strings.Builder
	id        string // the message id of the chunks so far, if the agent sends them
	afterTool bool   // a tool call came since the last chunk: the next chunk starts a new message
	over      bool   // the message passed maxMessageBytes; the rest was dropped
}

// maxMessageBytes bounds the final message kept, as the command provider
// bounds a command's output.
const maxMessageBytes = 4 << 20

// add appends one chunk of agent text.
func (m *message) add(id *string, text string) {
	switch {
	case id != nil && *id != m.id:
		m.text.Reset()
		m.id, m.over = *id, false
	case id == nil && m.afterTool:
		m.text.Reset()
		m.over = false
	}
	m.afterTool = false
	if m.text.Len()+len(text) > maxMessageBytes {
		m.over = true
		return
	}
	m.text.WriteString(text)
}

// final is the final message: empty when a tool call came after the last
// chunk.
func (m *message) final() string {
	if m.afterTool {
		return ""
	}
	return m.text.String()
}

// toolCall is what a tool_call notification said, for answering a
// permission request that says less.
type toolCall struct {
	kind      sdk.ToolKind
	locations []sdk.ToolCallLocation
}

// turnResult is how one session/prompt ended.
type turnResult struct {
	resp      sdk.PromptResponse
	err       error  // the request failed: the agent answered with an error, or the connection closed
	cancelled bool   // the child's context ended during the turn
	text      string // the final message
	tooLong   bool   // the final message passed maxMessageBytes
}

// schemaInstruction is appended to the prompt of a schema call, as the
// command provider does: ACP has no structured output of its own.
const schemaInstruction = "\n\nAnswer with only a JSON value that satisfies this JSON Schema, with no other text and no code fence:\n"

// correction is the second user turn of a schema call whose first answer
// did not satisfy the schema.
const correction = "Your answer does not satisfy the JSON Schema: %v.\n\nAnswer again with only a JSON value that satisfies this JSON Schema, with no other text and no code fence:\n%s\n"

// converse sends the prompt as the session's first user turn and turns
// the agent's final message into the result. A schema call whose answer
// does not satisfy the schema gets one more turn with the validation error.
func (c *child) converse(ctx context.Context) (agentapi.Result, error) {
	text := c.req.Prompt
	var compact string
	if c.schema != nil {
		compact = compactJSON(c.req.Schema)
		text += schemaInstruction + compact + "\n"
	}
	res, invalid, err := c.judge(ctx, c.turn(ctx, text), false)
	if invalid == nil || ctx.Err() != nil {
		return res, err
	}
	res, _, err = c.judge(ctx, c.turn(ctx, fmt.Sprintf(correction, invalid, compact)), true)
	if err == nil && res.Status == agentapi.StatusCompleted {
		res.Note = joinNotes(res.Note, "the first answer did not satisfy the schema; the agent corrected it")
	}
	return res, err
}

// turn sends one user turn and waits for its end. When the child's context
// ends first, the agent is told with session/cancel and has KillGrace to
// end its turn; then its process group is killed, which ends the turn for
// certain.
func (c *child) turn(ctx context.Context, text string) turnResult {
	c.mu.Lock()
	c.msg = message{}
	c.promptSent += len(text)
	c.mu.Unlock()

	// The request's own context outlives ctx: a cancelled child still
	// waits, for the grace, for the agent to end its turn as the protocol
	// asks.
	pctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	done := make(chan turnResult, 1)
	go func() {
		resp, err := c.conn.Prompt(pctx, sdk.PromptRequest{SessionId: c.sid, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
		done <- turnResult{resp: resp, err: err}
	}()
	var t turnResult
	select {
	case t = <-done:
	case <-ctx.Done():
		c.cancelling.Store(true)
		_ = c.conn.Cancel(context.WithoutCancel(ctx), sdk.CancelNotification{SessionId: c.sid})
		grace := time.NewTimer(c.grace)
		select {
		case t = <-done:
		case <-grace.C:
			c.end(ctx, true)
			stop()
			t = <-done
		}
		grace.Stop()
		t.cancelled = true
	}
	c.mu.Lock()
	t.text, t.tooLong = c.msg.final(), c.msg.over
	if u := t.resp.Usage; t.err == nil && u != nil {
		c.usage.InputTokens += int64(u.InputTokens)
		c.usage.OutputTokens += int64(u.OutputTokens)
		if u.CachedReadTokens != nil {
			c.usage.CachedTokens += int64(*u.CachedReadTokens)
		}
	} else {
		c.unreported = true // also for a turn cut short: its prompt was sent
	}
	c.mu.Unlock()
	return t
}

// judge turns a turn into the child's result. invalid is set, instead of
// a failed result, when a schema answer does not satisfy the schema and
// this is not the last turn: the caller then asks again.
func (c *child) judge(ctx context.Context, t turnResult, last bool) (res agentapi.Result, invalid error, err error) {
	if t.cancelled {
		how := ""
		if t.err == nil && t.resp.StopReason == sdk.StopReasonCancelled {
			how = " (it ended its turn after session/cancel)"
		} else if c.exit.Killed {
			how = fmt.Sprintf(" (it did not end its turn within %s of session/cancel, so its process group was killed)", c.grace)
		}
		return c.stopped(ctx, how), nil, nil
	}
	if t.err != nil {
		return c.turnError(ctx, t.err)
	}
	if t.tooLong {
		return failed(agentapi.FailureTaskFailed, "the agent's final message is longer than %d MiB: ask for a shorter answer, or for the details in a file", maxMessageBytes>>20), nil, nil
	}
	text := strings.TrimSpace(t.text)
	var note string
	switch t.resp.StopReason {
	case sdk.StopReasonEndTurn, "":
	case sdk.StopReasonMaxTokens:
		note = "the answer was cut off at the agent's output limit (stop reason max_tokens)"
	case sdk.StopReasonMaxTurnRequests:
		return failed(agentapi.FailureMaxTurns, "the agent stopped at its own limit of model requests for one turn (stop reason max_turn_requests) without a final answer%s", quoted(text)), nil, nil
	case sdk.StopReasonRefusal:
		return failed(agentapi.FailureTaskFailed, "the agent refused the task (stop reason refusal)%s", quoted(text)), nil, nil
	case sdk.StopReasonCancelled:
		return failed(agentapi.FailureTaskFailed, "the agent ended its turn as cancelled although wfrun did not cancel it%s", quoted(text)), nil, nil
	default:
		note = fmt.Sprintf("the agent ended its turn with the stop reason %q, which ACP does not define", t.resp.StopReason)
	}
	if c.schema == nil {
		if text == "" {
			return failed(agentapi.FailureTaskFailed, "the agent ended its turn without a final message: its last message after its last tool call was empty"), nil, nil
		}
		return agentapi.Result{Status: agentapi.StatusCompleted, Text: text, Note: note}, nil, nil
	}
	raw := json.RawMessage(schema.StripFences(text))
	if verr := c.schema.Validate(raw); verr != nil {
		if !last {
			return agentapi.Result{}, verr, nil
		}
		return failed(agentapi.FailureInvalidOutput, "the answer does not satisfy the schema, also after one correction: %v; answer: %q", verr, excerpt(text, 200)), nil, nil
	}
	return agentapi.Result{Status: agentapi.StatusCompleted, Output: json.RawMessage(compactJSON(raw)), Note: note}, nil, nil
}

// turnError is the result of a session/prompt that failed: the process
// went away (a failed child, with its exit and stderr), the agent wants a
// login (AGENT_START: every child would fail alike), or it answered with
// another error (a failed child).
func (c *child) turnError(ctx context.Context, err error) (agentapi.Result, error, error) {
	select {
	case <-c.conn.Done():
		ex := c.end(ctx, false)
		return failed(agentapi.FailureTaskFailed, "the agent's connection closed during its turn (%s)%s", exitText(ex), ex.StderrNote()), nil, nil
	default:
	}
	var re *sdk.RequestError
	if errors.As(err, &re) && re.Code == codeAuthRequired {
		return agentapi.Result{}, nil, wferr.Wrap(wferr.AgentStart, err,
			"the ACP agent %s needs authentication (%s): sign in with the agent's own command line first, or give it its API key with \"env\" or \"passEnv\" in --acp-config",
			c.p.name, rpcText(err))
	}
	return failed(agentapi.FailureTaskFailed, "the agent answered session/prompt with an error: %s", rpcText(err)), nil, nil
}

// finalUsage is the child's usage: what the agent reported for its turns,
// or, for a turn it reported nothing for, ceil(bytes/4) of the prompts sent
// and of the agent's text, as the fake and command providers estimate; and
// the cost of its last usage_update in US dollars.
func (c *child) finalUsage() agentapi.Usage {
	c.mu.Lock()
	defer c.mu.Unlock()
	u := c.usage
	if c.unreported {
		u.InputTokens = max(u.InputTokens, tokens(c.promptSent))
		u.OutputTokens = max(u.OutputTokens, tokens(c.agentBytes))
		c.noted = appendOnce(c.noted, "the agent reported no token usage for a turn, so the tokens are estimated from the text")
	}
	if c.cost != nil {
		if strings.EqualFold(c.cost.Currency, "USD") {
			u.CostUSD = c.cost.Amount
		} else {
			c.noted = appendOnce(c.noted, fmt.Sprintf("the agent reported its cost as %g %s, which is not counted in costUSD", c.cost.Amount, c.cost.Currency))
		}
	}
	return u
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func failed(kind agentapi.FailureKind, format string, args ...any) agentapi.Result {
	return agentapi.Result{Status: agentapi.StatusFailed, Failure: kind, Error: fmt.Sprintf(format, args...)}
}

// quoted is ": "TEXT"" for an error that shows the agent's last words, or
// "" when there were none.
func quoted(text string) string {
	if text == "" {
		return ""
	}
	return fmt.Sprintf("; its last message: %q", excerpt(text, 200))
}

// tokens is the estimated token count of n bytes: ceil(n/4).
func tokens(n int) int64 { return int64(n+3) / 4 }
