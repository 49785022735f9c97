package tool_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/ledger"
	"github.com/wfrun/wfrun/engine/subagent"
	"github.com/wfrun/wfrun/engine/tool"
)

// subagentSet returns owner's tools with the sub-agent tools, on an engine
// that keeps its runs, whose children may start children of their own.
func subagentSet(t *testing.T, rules, owner string) (*tool.Set, *subagent.Manager) {
	t.Helper()
	eng, _ := newEngine(t, engine.Config{RunsDir: t.TempDir() + "/runs", FakeRules: mustRules(t, rules)})
	m, err := tool.NewSubagents(eng) // its children get tool.ChildTools
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // before the engine's cleanup, which runs later
		if err := m.Close(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return tool.New(eng, tool.Options{Owner: owner, Subagents: m}), m
}

const subagentRules = `{"rules":[{"match":"^linger","delayMs":60000},{"match":"^broken","fail":"the build is red"}]}`

func TestSubagentTools_AreOfferedOnlyWithAManagerAndDescribeEveryField(t *testing.T) {
	plain, _ := newSet(t, "", tool.Options{})
	if _, ok := plain.Tool(tool.SubagentStart); ok {
		t.Fatal("a set without a manager offers subagent_start")
	}
	s, _ := subagentSet(t, subagentRules, "me")
	var names []tool.Name
	for _, d := range s.Definitions() {
		names = append(names, d.Name)
		var sch struct {
			AdditionalProperties *bool                      `json:"additionalProperties"`
			Properties           map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(d.InputSchema, &sch); err != nil || sch.AdditionalProperties == nil || *sch.AdditionalProperties {
			t.Errorf("%s: schema %s", d.Name, d.InputSchema)
		}
		for field, p := range sch.Properties {
			if !strings.Contains(string(p), `"description"`) {
				t.Errorf("%s.%s has no description", d.Name, field)
			}
		}
	}
	if want := append(tool.Names(), tool.SubagentNames()...); !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
}

func TestSubagentTools_StartSendResultListInterruptAndClose(t *testing.T) {
	s, _ := subagentSet(t, subagentRules, "me")
	started := call(t, s, tool.SubagentStart, map[string]any{"prompt": "research A"})
	e, ok := started.Structured.(subagent.Entry)
	if started.IsError || !ok || !strings.Contains(started.Text, "Started the sub-agent "+e.ChildID) {
		t.Fatalf("start: %+v", started)
	}
	first := call(t, s, tool.SubagentResult, map[string]any{"childId": e.ChildID, "timeoutMs": 10000})
	if first.IsError || first.Text != "Turn 1 of "+e.ChildID+" completed:\nresearch A" {
		t.Fatalf("result: %q", first.Text)
	}
	sent := call(t, s, tool.SubagentSend, map[string]any{"childId": e.ChildID, "message": "linger on B"})
	if sent.IsError || !strings.HasPrefix(sent.Text, "Accepted as turn 2 of "+e.ChildID) {
		t.Fatalf("send: %q", sent.Text)
	}
	waiting := call(t, s, tool.SubagentResult, map[string]any{"childId": e.ChildID, "timeoutMs": 20})
	if waiting.IsError || !strings.Contains(waiting.Text, "still") {
		t.Fatalf("a short wait: %q", waiting.Text)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := call(t, s, tool.SubagentInterrupt, map[string]any{"childId": e.ChildID})
		if strings.HasPrefix(r.Text, "Interrupted turn 2") {
			break
		}
		if r.IsError || time.Now().After(deadline) {
			t.Fatalf("interrupt: %q", r.Text)
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancelled := call(t, s, tool.SubagentResult, map[string]any{"childId": e.ChildID, "turn": 2, "timeoutMs": 10000})
	if !cancelled.IsError || cancelled.Text != "Turn 2 of "+e.ChildID+" cancelled: interrupted by its parent" {
		t.Fatalf("the interrupted turn: %q", cancelled.Text)
	}
	list := call(t, s, tool.SubagentList, map[string]any{})
	entries := list.Structured.(tool.SubagentEntries)
	if len(entries.Children) != 1 || !strings.Contains(list.Text, `"research A" idle · depth 1 · 2 turns, 0 queued · last: turn 2 cancelled`) {
		t.Fatalf("list: %q", list.Text)
	}
	closed := call(t, s, tool.SubagentClose, map[string]any{"childId": e.ChildID, "reason": "done"})
	if closed.IsError || closed.Structured.(subagent.Entry).Status != ledger.SubagentCancelled {
		t.Fatalf("close: %+v", closed)
	}
	late := call(t, s, tool.SubagentSend, map[string]any{"childId": e.ChildID, "message": "hello?"})
	if !late.IsError || !strings.Contains(late.Text, "takes no more messages") {
		t.Fatalf("a send after the close: %q", late.Text)
	}
}

func TestSubagentTools_AFailedTurnIsAnErrorAndBadInputIsRefusedWithASentence(t *testing.T) {
	s, _ := subagentSet(t, subagentRules, "me")
	e := call(t, s, tool.SubagentStart, map[string]any{"prompt": "broken build"}).Structured.(subagent.Entry)
	failed := call(t, s, tool.SubagentResult, map[string]any{"childId": e.ChildID, "timeoutMs": 10000})
	if !failed.IsError || failed.Text != "Turn 1 of "+e.ChildID+" failed (task_failed): the build is red" {
		t.Fatalf("a failed turn: %q", failed.Text)
	}
	for _, c := range []struct {
		name  tool.Name
		input map[string]any
		want  string
	}{
		{tool.SubagentStart, map[string]any{"promt": "x"}, "the subagent_start tool has no field \"promt\""},
		{tool.SubagentStart, map[string]any{"prompt": "x", "schema": []int{1}}, "UNSUPPORTED_SCHEMA"},
		{tool.SubagentSend, map[string]any{"childId": "sa_nobody", "message": "hi"}, "no sub-agent \"sa_nobody\" is known here"},
		{tool.SubagentSend, map[string]any{"childId": e.ChildID, "message": " "}, "the message is empty"},
		{tool.SubagentResult, map[string]any{"childId": e.ChildID, "timeoutMs": 700000}, "subagent_result waits at most 600000 ms"},
		{tool.SubagentResult, map[string]any{"childId": e.ChildID, "timeoutMs": -1}, "timeoutMs must not be negative"},
		{tool.SubagentResult, map[string]any{"childId": e.ChildID, "turn": 9}, "has turns 1 to 1"},
		{tool.SubagentList, map[string]any{"scope": "everyone"}, "scope must be"},
	} {
		res := call(t, s, c.name, c.input)
		if !res.IsError || !strings.Contains(res.Text, c.want) {
			t.Errorf("%s %v: %q, want it to contain %q", c.name, c.input, res.Text, c.want)
		}
	}
}

func TestSubagentTools_AChildStartsAChildOfItsOwnAndItsParentAloneMayTalkToIt(t *testing.T) {
	s, m := subagentSet(t, subagentRules, "me")
	parent := call(t, s, tool.SubagentStart, map[string]any{"prompt": "lead the research"}).Structured.(subagent.Entry)
	box := tool.ChildTools(m, subagent.Caller{Owner: "me", Child: parent.ChildID})
	defs, _ := box.Tools(context.Background())
	if len(defs) != len(tool.SubagentNames()) {
		t.Fatalf("a child's tools: %+v", defs)
	}
	text, err := box.Call(context.Background(), string(tool.SubagentStart), json.RawMessage(`{"prompt":"dig into A1"}`))
	if err != nil || !strings.Contains(text, "(depth 2)") {
		t.Fatalf("the child's start: %q %v", text, err)
	}
	all := call(t, s, tool.SubagentList, map[string]any{"scope": "descendants"})
	kids := all.Structured.(tool.SubagentEntries).Children
	if len(kids) != 2 || kids[1].Parent != parent.ChildID || !strings.Contains(all.Text, "\n  ") {
		t.Fatalf("descendants: %q", all.Text)
	}
	refused := call(t, s, tool.SubagentSend, map[string]any{"childId": kids[1].ChildID, "message": "skip a generation"})
	if !refused.IsError || !strings.Contains(refused.Text, "is not your direct child: it was started by your sub-agent "+parent.ChildID) {
		t.Fatalf("a send to a grandchild: %q", refused.Text)
	}
	grandchild := tool.ChildTools(m, subagent.Caller{Owner: "me", Child: kids[1].ChildID})
	if _, err := grandchild.Call(context.Background(), string(tool.SubagentStart), json.RawMessage(`{"prompt":"deeper"}`)); err == nil || !strings.Contains(err.Error(), "NESTING") {
		t.Fatalf("a start past the depth limit: %v", err)
	}
	res, ok := s.Subagent(kids[1].ChildID)
	if !ok || res.ChildID != kids[1].ChildID || len(res.History) != 1 || res.History[0].Message != "dig into A1" {
		t.Fatalf("the resource of the grandchild: %+v %v", res, ok)
	}
	other := tool.New(s.Engine(), tool.Options{Owner: "someone-else", Subagents: m})
	if _, ok := other.Subagent(parent.ChildID); ok {
		t.Fatal("another owner reads the resource")
	}
}
