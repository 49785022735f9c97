package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/ledger"
	"github.com/wfrun/wfrun/engine/subagent"
	"github.com/wfrun/wfrun/internal/human"
)

// The continuable sub-agent tools, offered when Options.Subagents is set.
const (
	SubagentStart     Name = "subagent_start"     // start a background child
	SubagentSend      Name = "subagent_send"      // a follow-up for its inbox
	SubagentInterrupt Name = "subagent_interrupt" // cancel its current turn
	SubagentList      Name = "subagent_list"      // children or descendants
	SubagentResult    Name = "subagent_result"    // wait for a turn's answer
	SubagentClose     Name = "subagent_close"     // end it for good
)

// SubagentNames lists the sub-agent tools in the order Definitions gives
// them, after the tools of Names.
func SubagentNames() []Name {
	return []Name{SubagentStart, SubagentSend, SubagentInterrupt, SubagentList, SubagentResult, SubagentClose}
}

// SubagentURI is the address of a child as an MCP resource: its entry and
// its turns, updated whenever a turn ends.
func SubagentURI(childID string) string { return "wfrun://subagents/" + childID }

// SubagentStartInput is the input of subagent_start.
type SubagentStartInput struct {
	Prompt    string          `json:"prompt" jsonschema:"minLength=1" jsonschema_description:"The task: the sub-agent's first message. It sees nothing else of yours: include every fact, file name and constraint it needs."`
	AgentType string          `json:"agentType,omitempty" jsonschema_description:"The persona to run it as. Default: a general worker."`
	Schema    json.RawMessage `json:"schema,omitempty" jsonschema_description:"A JSON Schema with an object root that every one of its answers must satisfy."`
	Model     string          `json:"model,omitempty" jsonschema_description:"The model to run it on. Default: the host's."`
	Tools     []string        `json:"tools,omitempty" jsonschema_description:"Names of the tools it may use; narrows its default set, never widens it."`
	Isolation string          `json:"isolation,omitempty" jsonschema:"enum=worktree" jsonschema_description:"worktree: it works in a git worktree of its own for its whole life."`
}

// SubagentSendInput is the input of subagent_send.
type SubagentSendInput struct {
	ChildID string `json:"childId" jsonschema:"pattern=^sa_" jsonschema_description:"The sub-agent's id, as subagent_start returned it (\"sa_…\"); one of your direct children."`
	Message string `json:"message" jsonschema:"minLength=1" jsonschema_description:"The follow-up. It becomes the sub-agent's next turn, after the turns before it."`
}

// ChildIDInput is the input of subagent_interrupt.
type ChildIDInput struct {
	ChildID string `json:"childId" jsonschema:"pattern=^sa_" jsonschema_description:"The sub-agent's id (\"sa_…\"); one of your direct children."`
}

// SubagentListInput is the input of subagent_list.
type SubagentListInput struct {
	Scope string `json:"scope,omitempty" jsonschema:"enum=children,enum=descendants" jsonschema_description:"children (the default): your direct children; descendants: theirs too, each after its parent."`
}

// SubagentResultInput is the input of subagent_result.
type SubagentResultInput struct {
	ChildID   string `json:"childId" jsonschema:"pattern=^sa_" jsonschema_description:"The sub-agent's id (\"sa_…\"); one of your direct children."`
	Turn      int    `json:"turn,omitempty" jsonschema:"minimum=0" jsonschema_description:"Which turn: 1 is the task, 2 the first follow-up, … Default: its current turn (the oldest not finished, else the last)."`
	TimeoutMs int64  `json:"timeoutMs,omitempty" jsonschema:"minimum=0,maximum=600000" jsonschema_description:"How long to wait in milliseconds: default 30000, at most 600000. When it passes first, the turn's status is returned and the sub-agent goes on."`
}

// SubagentCloseInput is the input of subagent_close.
type SubagentCloseInput struct {
	ChildID string `json:"childId" jsonschema:"pattern=^sa_" jsonschema_description:"The sub-agent's id (\"sa_…\"); one of your direct children."`
	Reason  string `json:"reason,omitempty" jsonschema_description:"Why; kept with it."`
}

// SubagentEntries is the structured content of subagent_list.
type SubagentEntries struct {
	Children []subagent.Entry `json:"children"`
}

// SubagentSent is the structured content of subagent_send.
type SubagentSent struct {
	ChildID string `json:"childId"`
	Turn    int    `json:"turn"`
	// Ahead is how many turns run before it: the running one and those
	// queued before it.
	Ahead int `json:"ahead"`
}

// SubagentInterrupted is the structured content of subagent_interrupt.
type SubagentInterrupted struct {
	ChildID string `json:"childId"`
	Turn    int    `json:"turn"` // the interrupted turn; 0 when none was running
	Queued  int    `json:"queued"`
}

const subagentStartDescription = `Start a sub-agent that works in the background and stays available for follow-ups: a conversation of its own (its own context, tools and workspace) that keeps its history across your messages, and survives a restart of this server. It returns {childId} at once; its first turn (the prompt) runs while you go on working. Use it for work you want to steer as it goes: give it a task, send follow-ups with subagent_send ("also check X"), stop a turn that went wrong with subagent_interrupt, and collect its answers with subagent_result (an MCP client is also notified when a turn ends). For one task whose answer you wait for, the agent tool is simpler; for a fixed plan of many agents, write a workflow. Close a sub-agent you no longer need with subagent_close.`

const subagentSendDescription = `Send a follow-up to one of your sub-agents. It goes to the end of its inbox and becomes a turn of its own: a message sent while a turn runs waits for that turn to finish, and never changes the work in progress (interrupt it first for that). A sub-agent that is stored but not loaded (after a restart) is woken with its whole history. It returns the turn number; wait for it with subagent_result. Only your direct children take your messages.`

const subagentInterruptDescription = `Interrupt the current turn of one of your sub-agents: that turn ends cancelled, and what it had done so far stays in its history. The sub-agent itself goes on: the messages queued behind the turn run next, and a later subagent_send starts a new turn. It returns at once.`

const subagentListDescription = `List your sub-agents with their status (running a turn, idle between turns, ready: stored and woken by a message, or failed and cancelled, which are over), parent, depth, turns, queued messages, last report and tokens used. scope descendants also lists the sub-agents they started, each after its parent.`

const subagentResultDescription = `Wait for the answer of one turn of one of your sub-agents: by default its current turn (the oldest not finished, else the last); turn picks another. It returns the answer as soon as the turn has ended, or the turn's status when timeoutMs passes first (default 30000, at most 600000); the sub-agent goes on, so call it again. A failed, timed-out or cancelled turn is an error that says why.`

const subagentCloseDescription = `Close one of your sub-agents for good, with the sub-agents it started: its running turn and its queued messages are cancelled, and its worktree, if it has one, is removed unless it changed something. It takes no more messages afterwards.`

// subagentTools are the sub-agent tools for one caller: an owner's (a
// Set's) or a child's (ChildTools).
type subagentTools struct {
	m      *subagent.Manager
	caller subagent.Caller
}

// defs are the definitions and handlers of the sub-agent tools.
func (st subagentTools) defs() []*Tool {
	return []*Tool{
		newTool(SubagentStart, subagentStartDescription, st.start),
		newTool(SubagentSend, subagentSendDescription, st.send),
		newTool(SubagentInterrupt, subagentInterruptDescription, st.interrupt),
		newTool(SubagentList, subagentListDescription, st.list),
		newTool(SubagentResult, subagentResultDescription, st.result),
		newTool(SubagentClose, subagentCloseDescription, st.close),
	}
}

// SubagentDefinitions returns the definitions of the sub-agent tools,
// which do not depend on a manager or an owner (for `wfrun tool`).
func SubagentDefinitions() []Definition {
	var defs []Definition
	for _, t := range (subagentTools{}).defs() {
		defs = append(defs, t.def)
	}
	return defs
}

// NewSubagents returns the manager of eng's continuable sub-agents on the
// engine's default provider, whose children below the depth limit get
// the sub-agent tools of their own (ChildTools), as wfrun mcp and wfrun
// agent keep them.
func NewSubagents(eng *engine.Engine) (*subagent.Manager, error) {
	var m *subagent.Manager
	m, err := subagent.New(eng, subagent.Options{ChildTools: func(c subagent.Caller) agentapi.Toolbox { return ChildTools(m, c) }})
	if err != nil {
		return nil, fmt.Errorf("the sub-agents cannot be kept: %w", err)
	}
	return m, nil
}

// ChildTools returns the sub-agent tools bound to caller, a child that
// may start children of its own: what subagent.Options.ChildTools wants.
//
//	var m *subagent.Manager
//	m, err = subagent.New(eng, subagent.Options{ChildTools: func(c subagent.Caller) agentapi.Toolbox { return tool.ChildTools(m, c) }})
func ChildTools(m *subagent.Manager, caller subagent.Caller) agentapi.Toolbox {
	return toolbox{tools: subagentTools{m: m, caller: caller}.defs()}
}

func (st subagentTools) start(ctx context.Context, in SubagentStartInput, _ func(Progress)) Result {
	if err := checkSchemaRoot(in.Schema); err != nil {
		return inputError(err)
	}
	e, err := st.m.Start(ctx, st.caller, subagent.StartRequest{Prompt: in.Prompt, AgentType: in.AgentType, Schema: in.Schema,
		Model: in.Model, Tools: in.Tools, Isolation: in.Isolation})
	if err != nil {
		return inputError(err)
	}
	return Result{Text: fmt.Sprintf("Started the sub-agent %s %q (depth %d); its first turn runs in the background. Send it follow-ups with subagent_send and collect its answers with subagent_result.",
		e.ChildID, e.Label, e.Depth), Structured: e}
}

func (st subagentTools) send(ctx context.Context, in SubagentSendInput, _ func(Progress)) Result {
	n, err := st.m.Send(ctx, st.caller, in.ChildID, in.Message)
	if err != nil {
		return inputError(err)
	}
	ahead := 0
	if ts, err := st.m.Turns(st.caller, in.ChildID); err == nil {
		for _, t := range ts {
			if t.N < n && !t.Status.Ended() {
				ahead++
			}
		}
	}
	text := fmt.Sprintf("Accepted as turn %d of %s; it runs now.", n, in.ChildID)
	if ahead > 0 {
		text = fmt.Sprintf("Accepted as turn %d of %s; it runs after the %s before it.", n, in.ChildID, human.Plural(ahead, "turn", "turns"))
	}
	return Result{Text: text + " Wait for it with subagent_result.", Structured: SubagentSent{ChildID: in.ChildID, Turn: n, Ahead: ahead}}
}

func (st subagentTools) interrupt(_ context.Context, in ChildIDInput, _ func(Progress)) Result {
	n, err := st.m.Interrupt(st.caller, in.ChildID)
	if err != nil {
		return inputError(err)
	}
	e, _ := st.m.Get(st.caller, in.ChildID)
	out := SubagentInterrupted{ChildID: in.ChildID, Turn: n, Queued: e.Queued}
	if n == 0 {
		return Result{Text: fmt.Sprintf("%s had no turn running; nothing was interrupted.", in.ChildID), Structured: out}
	}
	text := fmt.Sprintf("Interrupted turn %d of %s: it ends cancelled, and the sub-agent goes on.", n, in.ChildID)
	switch {
	case e.Queued == 1:
		text += " The message queued behind it runs next."
	case e.Queued > 1:
		text += fmt.Sprintf(" The %d messages queued behind it run next.", e.Queued)
	}
	return Result{Text: text, Structured: out}
}

func (st subagentTools) list(_ context.Context, in SubagentListInput, _ func(Progress)) Result {
	es, err := st.m.List(st.caller, subagent.Scope(in.Scope))
	if err != nil {
		return inputError(err)
	}
	if len(es) == 0 {
		return Result{Text: "No sub-agents yet.", Structured: SubagentEntries{Children: es}}
	}
	lines := make([]string, len(es))
	for i, e := range es {
		indent := ""
		if in.Scope == string(subagent.ScopeDescendants) {
			indent = strings.Repeat("  ", e.Depth-es[0].Depth)
		}
		lines[i] = indent + e.Line()
		if e.LastReport != "" {
			lines[i] += "\n" + indent + "  report: " + oneLine(e.LastReport, 200)
		}
	}
	return Result{Text: strings.Join(lines, "\n"), Structured: SubagentEntries{Children: es}}
}

func (st subagentTools) result(ctx context.Context, in SubagentResultInput, _ func(Progress)) Result {
	var err error
	if in.TimeoutMs, err = waitTimeout(SubagentResult, in.TimeoutMs); err != nil {
		return inputError(err)
	}
	r, err := st.m.Result(ctx, st.caller, in.ChildID, in.Turn, time.Duration(in.TimeoutMs)*time.Millisecond)
	if err != nil {
		return inputError(err)
	}
	return Result{Text: turnText(r, in.TimeoutMs), IsError: r.Done && r.Status != ledger.TurnCompleted, Structured: r}
}

func (st subagentTools) close(ctx context.Context, in SubagentCloseInput, _ func(Progress)) Result {
	e, err := st.m.CloseChild(ctx, st.caller, in.ChildID, strings.TrimSpace(in.Reason))
	if err != nil {
		return inputError(err)
	}
	text := fmt.Sprintf("Closed %s after %s.", e.ChildID, human.Plural(e.Turns, "turn", "turns"))
	if e.Worktree != nil {
		text += fmt.Sprintf(" Its work is kept on the branch %s, checked out at %s.", e.Worktree.Branch, e.Worktree.Path)
	}
	return Result{Text: text, Structured: e}
}

// turnText renders one turn for the model.
func turnText(r subagent.TurnResult, waitedMs int64) string {
	head := fmt.Sprintf("Turn %d of %s", r.Turn, r.ChildID)
	switch {
	case r.Status == ledger.TurnCompleted:
		answer := r.Text
		if len(r.Output) > 0 {
			var buf bytes.Buffer
			if json.Indent(&buf, r.Output, "", "  ") == nil {
				answer = buf.String()
			}
		}
		return head + " completed:\n" + answer
	case r.Done:
		what := string(r.Status)
		if r.Failure != "" && r.Failure != string(r.Status) {
			what += " (" + r.Failure + ")"
		}
		return fmt.Sprintf("%s %s: %s", head, what, r.Error)
	case r.Child == ledger.SubagentReady || r.Child.Ended():
		return fmt.Sprintf("%s is %s, and %s is %s: %s", head, r.Status, r.ChildID, r.Child, readyHint(r.Child))
	case r.Status == ledger.TurnQueued:
		return fmt.Sprintf("%s is still queued after waiting %s s; call subagent_result again to go on waiting.", head, seconds(waitedMs))
	}
	return fmt.Sprintf("%s is still running after waiting %s s (%d queued behind it); call subagent_result again to go on waiting, or subagent_interrupt to stop it.",
		head, seconds(waitedMs), r.Queued)
}

func readyHint(s subagent.Status) string {
	if s == ledger.SubagentReady {
		return "it is stored, not loaded, and runs nothing until a message wakes it; send one with subagent_send"
	}
	return "it is over and runs nothing more; start a new sub-agent"
}

// oneLine is s on one line, cut at n characters.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// SubagentResource is the content of the resource wfrun://subagents/<id>:
// the child's entry and its turns.
type SubagentResource struct {
	subagent.Entry
	History []ledger.Turn `json:"turns"`
}

// Subagent returns the resource of one child of the set's owner (a direct
// child or deeper): its entry and turns. ok is false for a child the owner
// cannot see, or a set without sub-agents.
func (s *Set) Subagent(childID string) (SubagentResource, bool) {
	if s.opts.Subagents == nil {
		return SubagentResource{}, false
	}
	caller := subagent.Caller{Owner: s.opts.Owner}
	e, err := s.opts.Subagents.Get(caller, childID)
	if err != nil {
		return SubagentResource{}, false
	}
	ts, err := s.opts.Subagents.Turns(caller, childID)
	if err != nil {
		return SubagentResource{}, false
	}
	return SubagentResource{Entry: e, History: ts}, true
}

// CloseSubagents closes every child of the set's owner, for a host whose
// owner nobody will speak for again (an MCP session with an owner of its
// own has ended).
func (s *Set) CloseSubagents(ctx context.Context, reason string) {
	if s.opts.Subagents != nil {
		s.opts.Subagents.CloseAll(ctx, s.opts.Owner, reason)
	}
}
