package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/modelmap"
	"github.com/wfrun/wfrun/agentapi/persona"
	"github.com/wfrun/wfrun/agentapi/schema"
	"github.com/wfrun/wfrun/agentapi/tools"
	"github.com/wfrun/wfrun/agentapi/workspace"
	"github.com/wfrun/wfrun/internal/wferr"
)

// conversation is one child: its own messages, tools, usage and turn
// count. Only the goroutine running Run touches it (tool calls run
// concurrently but only read it).
type conversation struct {
	p   *Provider
	req agentapi.Request
	settings

	msgs    []goopenai.ChatCompletionMessage
	tools   []goopenai.Tool             // the tools this child may call
	allowed map[string]agentapi.Toolbox // their names, and the toolbox each comes from
	extra   agentapi.Toolbox            // the host's tools for a continued child, or nil

	sch      *schema.Schema // nil for a text call
	toolMode bool           // the schema is answered through final_answer
	// named is set when the last request's tool_choice named final_answer,
	// and forced when it named it or said "required": a reply without the
	// call then shows that the endpoint ignored the tool_choice.
	named, forced bool

	ctxw contextWindow // keeps the history within the model's window

	// The child's place: its workspace (the run's, narrowed by a read-only
	// persona, or its own worktree's) and the built-in tools rooted there.
	// nil without Config.Workspace. See workplace.go.
	ws       *workspace.Workspace
	worktree *workspace.Worktree
	builtin  *tools.Set
	reopen   *worktreeState // a resumed child's worktree, to open again

	usage  agentapi.Usage
	tr     *transcript
	callNo int // numbers tool calls that came without an id

	baseNotes []string // a continued child's notes from its setup, which every turn starts with
}

// setup is what a continued conversation adds to a child's request (see
// converse.go); the zero value is a one-shot child's.
type setup struct {
	extra agentapi.Toolbox // the host's tools for this child alone
	dir   string           // the child's own folder: its transcript
	snap  *snapshot        // the state to resume, nil for a new conversation
}

// newConversation sets up one child, with its system prompt as the only
// message (or, resuming, the saved history). On success the caller must
// end it with leaveWorkplace; on an error nothing is left behind.
func (p *Provider) newConversation(ctx context.Context, req agentapi.Request, su setup) (_ *conversation, err error) {
	set, err := p.settle(req)
	if err != nil {
		return nil, err
	}
	c := &conversation{p: p, req: req, settings: set, allowed: map[string]agentapi.Toolbox{}, extra: su.extra}
	c.ctxw.window = set.window
	if su.snap != nil {
		c.reopen = su.snap.Worktree
	}
	if err := c.enterWorkplace(ctx); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			c.leaveWorkplace(context.WithoutCancel(ctx))
		}
	}()
	if len(bytes.TrimSpace(req.Schema)) > 0 {
		sch, err := p.schemas.Get(req.Schema)
		if err != nil {
			return nil, wferr.Wrap(wferr.AgentStart, err, "the request's schema does not compile, which the run side should have refused with UNSUPPORTED_SCHEMA: %v", err)
		}
		c.sch = sch
		c.toolMode = p.cfg.JSONSchemaMode == SchemaTool || (p.cfg.JSONSchemaMode == SchemaAuto && p.toolSchema.Load())
	}
	if err := c.pickTools(ctx); err != nil {
		return nil, err
	}
	var tr *transcript
	if su.dir != "" {
		tr, err = appendTranscript(su.dir)
	} else {
		tr, err = openTranscript(p.cfg.TranscriptDir, req.AgentID)
	}
	if err != nil {
		return nil, err
	}
	c.tr = tr
	var names []string
	for _, t := range c.tools {
		names = append(names, t.Function.Name)
	}
	start := record{Type: "start", RunID: req.RunID, AgentID: req.AgentID, Model: c.model, Tools: names, ContextWindow: c.ctxw.window}
	if c.persona != nil {
		start.Persona, start.Source = c.persona.Name, c.persona.Source
	}
	if su.snap != nil {
		start.Type = "resume"
		c.restore(su.snap)
		tr.write(start)
		return c, nil
	}
	tr.write(start)

	var schemaText []byte
	if c.sch != nil {
		schemaText = c.sch.Raw()
	}
	c.add(goopenai.ChatCompletionMessage{Role: goopenai.ChatMessageRoleSystem, Content: c.systemPrompt(schemaText)})
	return c, nil
}

// systemPrompt is the worker framing, the persona's prompt and the schema.
func (c *conversation) systemPrompt(schemaText []byte) string {
	var role string
	if c.persona != nil {
		role = c.persona.Prompt
	}
	return systemPrompt(role, schemaText, c.toolMode)
}

// pickTools lists the tools of every tool source and keeps those the
// request may use: persona.NarrowTools decides, over the names of all
// sources together, so that the persona's and the call's narrowing apply
// to every source alike. A name two sources both have is the first's.
func (c *conversation) pickTools(ctx context.Context) error {
	var all []agentapi.Tool
	from := map[string]agentapi.Toolbox{}
	for _, box := range c.toolSources() {
		ts, err := box.Tools(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return wferr.Wrap(wferr.AgentStart, err, "the openai provider cannot list the tools of its toolbox: %v", err)
		}
		for _, t := range ts {
			if _, dup := from[t.Name]; dup || (t.Name == finalAnswerTool && c.sch != nil) {
				continue // final_answer is hidden by ours, should the endpoint need it
			}
			from[t.Name] = box
			all = append(all, t)
		}
	}
	names := make([]string, len(all))
	for i, t := range all {
		names[i] = t.Name
	}
	keep, notes := persona.NarrowTools(names, c.persona, c.req.Tools)
	c.notes = append(c.notes, notes...)
	kept := make(map[string]bool, len(keep))
	for _, n := range keep {
		kept[n] = true
	}
	var mine []agentapi.Tool
	for _, t := range all {
		if kept[t.Name] {
			mine = append(mine, t)
			c.allowed[t.Name] = from[t.Name]
		}
	}
	c.tools = toolDefs(mine)
	return nil
}

// add appends m to the conversation and the transcript.
func (c *conversation) add(m goopenai.ChatCompletionMessage) {
	c.msgs = append(c.msgs, mendMessage(m))
	c.tr.message(m)
}

// run is the agent loop. See the package documentation for its rules.
func (c *conversation) run(ctx context.Context) (agentapi.Result, error) {
	maxTurns := c.maxTurns
	invalid := 0 // answers that did not satisfy the schema
	for turn := 0; turn < maxTurns; turn++ {
		msg, end, err := c.ask(ctx, true)
		if end != nil || err != nil {
			return c.result(end), err
		}
		if msg.Refusal != "" {
			return c.failed(agentapi.FailureTaskFailed, "the model refused: "+msg.Refusal), nil
		}

		calls := msg.ToolCalls
		var answer *goopenai.ToolCall
		if c.toolMode {
			calls, answer = splitFinalAnswer(calls)
		}
		if answer != nil {
			out, verr := c.check(answer.Function.Arguments)
			if verr == nil {
				return c.completed("", out), nil
			}
			invalid++
			if invalid > c.p.cfg.SchemaRetries {
				return c.invalidOutput(invalid, verr), nil
			}
			// Every tool call needs its result: the answer's is the error.
			c.addToolResults(append(c.runTools(ctx, calls),
				toolOutcome{call: *answer, content: schemaRetryMessage(verr, true), failed: true}))
			if ctx.Err() != nil {
				return c.ended(ctx), nil
			}
			continue
		}
		if len(calls) > 0 {
			c.addToolResults(c.runTools(ctx, calls))
			if ctx.Err() != nil {
				return c.ended(ctx), nil
			}
			continue
		}

		content := strings.TrimSpace(msg.Content)
		if c.named && c.ignoredNamedChoice() {
			// The text may still be the answer; if not, ask again, now with
			// "required", which such an endpoint does enforce. This answer
			// is not counted against the schema retries: the endpoint, not
			// the model, left the tool out.
			if out, verr := c.check(schema.StripFences(content)); content != "" && verr == nil {
				return c.completed("", out), nil
			}
			c.add(userMessage(toolRequiredMessage))
			continue
		}
		if content == "" {
			c.add(userMessage(emptyReply))
			continue
		}
		if c.sch == nil {
			return c.completed(msg.Content, nil), nil
		}
		out, verr := c.check(schema.StripFences(content))
		if verr == nil {
			return c.completed("", out), nil
		}
		invalid++
		if invalid > c.p.cfg.SchemaRetries {
			if c.forced {
				verr = fmt.Errorf("%w (%s answered in plain text although tool_choice required a call to %s: it does not enforce tool_choice; use JSONSchemaMode %q, response_format, with it)",
					verr, c.p.cfg.BaseURL, finalAnswerTool, SchemaAuto)
			}
			return c.invalidOutput(invalid, verr), nil
		}
		c.add(userMessage(schemaRetryMessage(verr, false)))
	}
	return c.lastTurn(ctx, maxTurns)
}

// lastTurn is the turn after the limit: no tools, one request for the best
// final answer.
func (c *conversation) lastTurn(ctx context.Context, maxTurns int) (agentapi.Result, error) {
	why := fmt.Sprintf("the agent reached its limit of %d turns", maxTurns)
	return c.finalTurn(ctx, lastTurnMessage(c.sch != nil, c.toolMode), "max_turns reached", agentapi.FailureMaxTurns, why)
}

// finalTurn asks, without tools, for the best final answer now. note is
// added to the child's notes; a reply with nothing usable fails the child
// with kind, explained by why.
func (c *conversation) finalTurn(ctx context.Context, prompt, note string, kind agentapi.FailureKind, why string) (agentapi.Result, error) {
	c.add(userMessage(prompt))
	msg, end, err := c.ask(ctx, false)
	if end != nil || err != nil {
		return c.result(end), err
	}
	c.notes = append(c.notes, note)
	if c.sch == nil {
		if strings.TrimSpace(msg.Content) == "" {
			return c.failed(kind, why+" without a final answer"), nil
		}
		return c.completed(msg.Content, nil), nil
	}
	text := schema.StripFences(msg.Content)
	if _, answer := splitFinalAnswer(msg.ToolCalls); answer != nil {
		text = answer.Function.Arguments
	}
	if strings.TrimSpace(text) == "" {
		return c.failed(kind, why+" without a final answer"), nil
	}
	out, verr := c.check(text)
	if verr != nil {
		return c.failed(kind, fmt.Sprintf("%s, and its last answer does not satisfy the schema: %v", why, verr)), nil
	}
	return c.completed("", out), nil
}

// ask sends the conversation and appends the model's reply. withTools
// false offers no tools (the final_answer tool stays in tool mode). end is
// set when the child is over; err when the provider is misconfigured.
//
// Before sending, the history is fitted into the context window. A refusal
// the endpoint explains is answered once each: response_format (switch to
// the final_answer tool), reasoning_effort (step the effort down, then
// drop it), and a context-length error (one final answer on a trimmed
// history; only a second one fails the child with context_length).
func (c *conversation) ask(ctx context.Context, withTools bool) (msg goopenai.ChatCompletionMessage, end *agentapi.Result, err error) {
	c.fit(withTools)
	resp, err := c.chat(ctx, c.request(withTools))
	for tries := 0; err != nil && tries < 3; tries++ {
		var ce *callError
		if !errors.As(err, &ce) || ctx.Err() != nil {
			break
		}
		switch {
		case !c.toolMode && c.sch != nil && c.p.cfg.JSONSchemaMode == SchemaAuto && mentionsResponseFormat(ce):
			// The endpoint does not take response_format: answer through the
			// final_answer tool from now on, on every child.
			c.p.toolSchema.Store(true)
			c.toolMode = true
			c.notes = append(c.notes, "the endpoint refused response_format; used the final_answer tool")
			c.msgs[0].Content = c.systemPrompt(c.sch.Raw())
		case c.effort != "" && mentionsEffort(ce):
			c.stepDownEffort()
		case c.toolMode && !c.p.noNamedChoice.Load() && mentionsToolChoice(ce):
			// The answer still comes through the final_answer tool, or as
			// JSON text, which is checked against the schema as well.
			c.p.noNamedChoice.Store(true)
			c.notes = append(c.notes, "the endpoint refused a tool_choice naming final_answer; sent \"required\"")
		default:
			tries = 3 // nothing to change: the error stands
			continue
		}
		resp, err = c.chat(ctx, c.request(withTools))
	}
	if err != nil {
		if ctx.Err() != nil {
			var ab *abortedError
			if errors.As(err, &ab) && ab.sent {
				c.countAborted(withTools)
			}
			r := c.ended(ctx)
			return msg, &r, nil
		}
		var ce *callError
		if !errors.As(err, &ce) {
			r := c.failed(agentapi.FailureTaskFailed, err.Error())
			return msg, &r, nil
		}
		if ce.fatal != nil {
			return msg, nil, ce.fatal
		}
		if ce.kind == agentapi.FailureContextLength && !c.ctxw.trimmed {
			r, err := c.answerOnTrimmedHistory(ctx, ce)
			return msg, &r, err
		}
		r := c.failed(ce.kind, ce.msg)
		return msg, &r, nil
	}

	u := agentapi.Usage{InputTokens: int64(resp.Usage.PromptTokens), OutputTokens: int64(resp.Usage.CompletionTokens)}
	if d := resp.Usage.PromptTokensDetails; d != nil {
		u.CachedTokens = int64(d.CachedTokens)
	}
	c.usage = c.usage.Add(u)
	c.tr.usage(u)
	if len(resp.Choices) == 0 {
		r := c.failed(agentapi.FailureTaskFailed, fmt.Sprintf("%s answered without a message (no choices)", c.p.cfg.BaseURL))
		return msg, &r, nil
	}
	choice := resp.Choices[0]
	msg = choice.Message
	msg.Role = goopenai.ChatMessageRoleAssistant
	msg.ReasoningContent = "" // endpoints such as DeepSeek refuse it in the history
	for i := range msg.ToolCalls {
		if msg.ToolCalls[i].ID == "" {
			c.callNo++
			msg.ToolCalls[i].ID = fmt.Sprintf("call_%d", c.callNo)
		}
		msg.ToolCalls[i].Type = goopenai.ToolTypeFunction
		msg.ToolCalls[i].Index = nil
	}
	c.add(msg)
	c.ctxw.measured(len(c.msgs), resp.Usage.PromptTokens+resp.Usage.CompletionTokens)
	if choice.FinishReason == goopenai.FinishReasonLength && len(msg.ToolCalls) == 0 {
		c.notes = append(c.notes, "the answer was cut off at the model's output limit")
	}
	return msg, nil, nil
}

// ignoredNamedChoice handles a reply without tool calls to a request whose
// tool_choice named final_answer, which a compliant endpoint never sends:
// the endpoint ignored the tool_choice (llama-server takes only "auto",
// "none" and "required", and reads an object as "auto", with no error).
// From then on every child of the provider sends "required". It reports
// false when the provider already knew.
func (c *conversation) ignoredNamedChoice() bool {
	if c.p.noNamedChoice.Swap(true) {
		return false
	}
	c.notes = append(c.notes, "the endpoint ignored a tool_choice naming final_answer (it answered in plain text); sent \"required\"")
	return true
}

// countAborted adds the estimated prompt of a request that reached the
// endpoint and was then aborted: the server worked on it but never said how
// much, and a budget that counted nothing would undercount exactly the runs
// that hit their limits.
func (c *conversation) countAborted(withTools bool) {
	n := int64(c.estimate(withTools))
	u := agentapi.Usage{InputTokens: n, EstimatedTokens: n}
	c.usage = c.usage.Add(u)
	c.tr.usage(u)
	c.notes = append(c.notes, fmt.Sprintf("the aborted request's prompt is counted as an estimated %d tokens", n))
}

// stepDownEffort answers an endpoint that refused the reasoning_effort:
// xhigh becomes high, anything else is dropped. The provider remembers the
// refusal for this model, so that later children skip it.
func (c *conversation) stepDownEffort() {
	from := c.effort
	next := ""
	if e, err := modelmap.ParseEffort(from); err == nil {
		if lower, ok := e.StepDown(); ok {
			next = lower.ReasoningEffort()
		}
	}
	c.p.efforts.Store(c.model+"\x00"+from, next)
	c.effort = next
	if next == "" {
		c.notes = append(c.notes, fmt.Sprintf("the endpoint refused reasoning_effort %s; sent none", from))
	} else {
		c.notes = append(c.notes, fmt.Sprintf("the endpoint refused reasoning_effort %s; used %s", from, next))
	}
}

// answerOnTrimmedHistory is the one retry after the endpoint said the
// conversation is too long: every tool result becomes a one-line stub (the
// oldest exchanges go entirely if that is still too much), and one turn
// without tools asks for the final answer.
func (c *conversation) answerOnTrimmedHistory(ctx context.Context, ce *callError) (agentapi.Result, error) {
	c.ctxw.trimmed = true
	c.trim()
	why := fmt.Sprintf("the conversation outgrew the model's context window (%s)", ce.msg)
	return c.finalTurn(ctx, trimmedMessage(c.sch != nil, c.toolMode),
		"the endpoint refused the conversation as too long; answered on a trimmed history", agentapi.FailureContextLength, why)
}

// request builds the chat completion request for the next turn.
func (c *conversation) request(withTools bool) goopenai.ChatCompletionRequest {
	c.named, c.forced = false, false
	r := goopenai.ChatCompletionRequest{
		Model:           c.model,
		Messages:        c.msgs,
		ReasoningEffort: c.effortFor(),
	}
	if withTools {
		r.Tools = append(r.Tools, c.tools...)
	}
	switch {
	case c.sch == nil:
	case c.toolMode:
		r.Tools = append(r.Tools, goopenai.Tool{Type: goopenai.ToolTypeFunction, Function: &goopenai.FunctionDefinition{
			Name:        finalAnswerTool,
			Description: "Give your final answer. Call this exactly once, when you have the answer; its arguments are the answer.",
			Parameters:  c.sch.Raw(),
		}})
		c.forced = true
		if len(r.Tools) > 1 || c.p.noNamedChoice.Load() {
			r.ToolChoice = "required"
		} else {
			r.ToolChoice = goopenai.ToolChoice{Type: goopenai.ToolTypeFunction, Function: goopenai.ToolFunction{Name: finalAnswerTool}}
			c.named = true
		}
	default:
		r.ResponseFormat = &goopenai.ChatCompletionResponseFormat{
			Type: goopenai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &goopenai.ChatCompletionResponseFormatJSONSchema{
				Name: "answer", Schema: c.sch.Raw(), Strict: false,
			},
		}
	}
	return r
}

// effortFor is the reasoning_effort to send: the child's, unless the
// endpoint already refused it for this model.
func (c *conversation) effortFor() string {
	for range 3 { // xhigh → high → none at most
		v, ok := c.p.efforts.Load(c.model + "\x00" + c.effort)
		if !ok || c.effort == "" {
			break
		}
		c.effort = v.(string)
	}
	return c.effort
}

// check validates an answer against the schema and returns it compacted.
func (c *conversation) check(text string) (json.RawMessage, error) {
	raw := json.RawMessage(strings.TrimSpace(text))
	if err := c.sch.Validate(raw); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (c *conversation) addToolResults(outs []toolOutcome) {
	for _, o := range outs {
		c.ctxw.noteSize(o.call.ID, len(o.content))
		c.msgs = append(c.msgs, goopenai.ChatCompletionMessage{
			Role: goopenai.ChatMessageRoleTool, ToolCallID: o.call.ID, Name: o.call.Function.Name, Content: o.content,
		})
		c.tr.toolResult(o)
	}
}

// splitFinalAnswer takes the first final_answer call out of calls.
func splitFinalAnswer(calls []goopenai.ToolCall) (rest []goopenai.ToolCall, answer *goopenai.ToolCall) {
	for i := range calls {
		if calls[i].Function.Name == finalAnswerTool && answer == nil {
			answer = &calls[i]
			continue
		}
		rest = append(rest, calls[i])
	}
	return rest, answer
}

func userMessage(s string) goopenai.ChatCompletionMessage {
	return goopenai.ChatCompletionMessage{Role: goopenai.ChatMessageRoleUser, Content: s}
}

// The results of a child. Each carries the usage so far, priced.

func (c *conversation) completed(text string, out json.RawMessage) agentapi.Result {
	return c.result(&agentapi.Result{Status: agentapi.StatusCompleted, Text: text, Output: out})
}

func (c *conversation) failed(kind agentapi.FailureKind, msg string) agentapi.Result {
	status := agentapi.StatusFailed
	if kind == agentapi.FailureTimeout {
		status = agentapi.StatusTimedOut
	}
	return c.result(&agentapi.Result{Status: status, Failure: kind, Error: msg})
}

func (c *conversation) invalidOutput(answers int, err error) agentapi.Result {
	return c.failed(agentapi.FailureInvalidOutput, fmt.Sprintf("%d answers in a row did not satisfy the schema; the last: %v", answers, err))
}

// ended is the result of a child whose context ended first.
func (c *conversation) ended(ctx context.Context) agentapi.Result {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return c.result(&agentapi.Result{Status: agentapi.StatusTimedOut, Failure: agentapi.FailureTimeout,
			Error: "the agent's deadline passed before it finished"})
	}
	return c.result(&agentapi.Result{Status: agentapi.StatusCancelled, Failure: agentapi.FailureCancelled,
		Error: "the agent was cancelled before it finished"})
}

// result completes r with the usage, its cost and the notes. A nil r
// (the provider is misconfigured) gives the zero Result.
func (c *conversation) result(r *agentapi.Result) agentapi.Result {
	if r == nil {
		return agentapi.Result{}
	}
	res := *r
	res.Usage = c.usage
	cost, note := c.p.price(c.model, c.usage)
	res.Usage.CostUSD = cost
	notes := append([]string(nil), c.notes...)
	if n := c.ctxw.note(); n != "" {
		notes = append(notes, n)
	}
	if note != "" {
		notes = append(notes, note)
	}
	res.Note = strings.Join(notes, "; ")
	return res
}

// finish ends the transcript.
func (c *conversation) finish(res agentapi.Result, err error) { c.tr.close(res, err) }
