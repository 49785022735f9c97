package tool_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/tool"
)

const slowScript = "export const meta = { name: 'slow', description: 'one slow agent' }\nphase('Waiting')\nreturn await agent('slow: take your time')"

func startBackground(t *testing.T, s *tool.Set, script string) string {
	t.Helper()
	res := call(t, s, tool.Workflow, map[string]any{"script": script, "background": true})
	started, ok := res.Structured.(tool.Started)
	if res.IsError || !ok || !strings.HasPrefix(started.RunID, "wf_") || res.RunID != started.RunID {
		t.Fatalf("background start: %+v", res)
	}
	return started.RunID
}

func info(t *testing.T, res tool.Result) engine.RunInfo {
	t.Helper()
	in, ok := res.Structured.(engine.RunInfo)
	if !ok {
		t.Fatalf("structured content is %T, not engine.RunInfo: %s", res.Structured, res.Text)
	}
	return in
}

func TestBackground_StartStatusWaitCancel(t *testing.T) {
	s, _ := newSet(t, slowRules, tool.Options{})
	id := startBackground(t, s, slowScript)

	st := call(t, s, tool.WorkflowStatus, map[string]string{"runId": id})
	if in := info(t, st); st.IsError || in.Status != engine.RunRunning || in.Meta.Name != "slow" || !in.Background {
		t.Fatalf("status %+v", st)
	}
	w := call(t, s, tool.WorkflowWait, map[string]any{"runId": id, "timeoutMs": 20})
	if in := info(t, w); w.IsError || in.Status != engine.RunRunning || !strings.Contains(w.Text, "call workflow_wait again") {
		t.Fatalf("wait that timed out: %+v", w)
	}
	c := call(t, s, tool.WorkflowCancel, map[string]string{"runId": id, "reason": "changed my mind"})
	if in := info(t, c); c.IsError || in.Status != engine.RunCancelled || !strings.Contains(in.Error, "changed my mind") {
		t.Fatalf("cancel %+v", c)
	}
	w = call(t, s, tool.WorkflowWait, map[string]any{"runId": id})
	if out := output(t, w); !w.IsError || out.StopReason != engine.StopCancelled || !strings.Contains(w.Text, "was cancelled") {
		t.Fatalf("wait after cancel %+v", w)
	}
	again := call(t, s, tool.WorkflowCancel, map[string]string{"runId": id})
	if again.IsError || !strings.Contains(again.Text, "already finished") {
		t.Fatalf("second cancel %+v", again)
	}
}

func TestBackground_WaitReturnsTheResultOfAFinishedRun(t *testing.T) {
	s, _ := newSet(t, "", tool.Options{})
	id := startBackground(t, s, "export const meta = { name: 'quick', description: 'one agent' }\nreturn await agent('hello')")
	res := call(t, s, tool.WorkflowWait, map[string]any{"runId": id, "timeoutMs": 10000})
	if res.IsError || !strings.HasPrefix(res.Text, `workflow "quick" completed (1 agent,`) || string(output(t, res).Value) != `"hello"` {
		t.Fatalf("%+v", res)
	}
	list := call(t, s, tool.WorkflowList, nil).Structured.(tool.RunList)
	if len(list.Runs) != 1 || list.Runs[0].Status != engine.RunCompleted {
		t.Fatalf("list %+v", list)
	}
}

func TestBackground_AnotherOwnerCannotSeeOrCancelTheRun(t *testing.T) {
	eng, _ := newEngine(t, engine.Config{})
	alice := tool.New(eng, tool.Options{Owner: "alice"})
	bob := tool.New(eng, tool.Options{Owner: "bob"})
	id := startBackground(t, alice, "export const meta = { name: 'mine', description: 'x' }\nreturn 1")
	for _, name := range []tool.Name{tool.WorkflowStatus, tool.WorkflowWait, tool.WorkflowCancel} {
		res := call(t, bob, name, map[string]string{"runId": id})
		if !res.IsError || !strings.Contains(res.Text, "no run \""+id+"\" is known here") {
			t.Fatalf("%s by another owner: %+v", name, res)
		}
	}
	if runs := call(t, bob, tool.WorkflowList, nil).Structured.(tool.RunList).Runs; len(runs) != 0 {
		t.Fatalf("bob lists %+v", runs)
	}
	if res := call(t, alice, tool.WorkflowWait, map[string]string{"runId": id}); res.IsError {
		t.Fatalf("alice cannot wait for her run: %s", res.Text)
	}
}

func TestBackground_PastTheOwnersLimitIsRefusedWithASentence(t *testing.T) {
	rules := mustRules(t, slowRules)
	eng, _ := newEngine(t, engine.Config{MaxBackgroundRuns: 1, FakeRules: rules})
	s := tool.New(eng, tool.Options{Owner: "busy"})
	startBackground(t, s, slowScript)
	res := call(t, s, tool.Workflow, map[string]any{"script": slowScript, "background": true})
	if out := output(t, res); !res.IsError || out.ErrorCode != engine.CodeResourceLimit || !strings.Contains(res.Text, "background runs going") {
		t.Fatalf("%+v", res)
	}
	s.CancelAll("test over")
}

func TestBackground_CancelAllCancelsOnlyTheOwnersRunningRuns(t *testing.T) {
	rules := mustRules(t, slowRules)
	eng, _ := newEngine(t, engine.Config{FakeRules: rules})
	a := tool.New(eng, tool.Options{Owner: "a"})
	b := tool.New(eng, tool.Options{Owner: "b"})
	ida := startBackground(t, a, slowScript)
	idb := startBackground(t, b, slowScript)
	a.CancelAll("session closed")
	if res := call(t, a, tool.WorkflowWait, map[string]string{"runId": ida}); output(t, res).StopReason != engine.StopCancelled {
		t.Fatalf("%+v", res)
	}
	if in := info(t, call(t, b, tool.WorkflowStatus, map[string]string{"runId": idb})); in.Status != engine.RunRunning {
		t.Fatalf("b's run %+v", in)
	}
	b.CancelAll("test over")
}

func TestWait_TimeoutOutsideItsRangeIsRefused(t *testing.T) {
	s, _ := newSet(t, "", tool.Options{})
	for ms, want := range map[int64]string{
		-1:                 "INVALID_REQUEST: timeoutMs must not be negative; leave it out to wait 30000 ms",
		tool.MaxWaitMs + 1: "INVALID_REQUEST: timeoutMs is 600001; workflow_wait waits at most 600000 ms",
	} {
		res := call(t, s, tool.WorkflowWait, map[string]any{"runId": "wf_0000000000000000", "timeoutMs": ms})
		if !res.IsError || !strings.Contains(res.Text, "timeoutMs") || !strings.HasPrefix(res.Text, want) {
			t.Fatalf("timeoutMs %d: %+v, want a text that starts with %q", ms, res, want)
		}
	}
}

func TestWait_ReportsProgressOfTheRunItWaitsFor(t *testing.T) {
	running := make(chan struct{}, 1)
	s, _ := newSet(t, slowRules, tool.Options{OnEvent: func(ev engine.Event) {
		if ev.Type == engine.EventAgentStart {
			running <- struct{}{}
		}
	}})
	id := startBackground(t, s, "export const meta = { name: 'two', description: 'x' }\nphase('First')\nreturn await agent('slow one')")
	<-running
	reports := make(chan tool.Progress, 16)
	done := make(chan tool.Result, 1)
	go func() {
		done <- s.CallWithProgress(context.Background(), tool.WorkflowWait, json.RawMessage(`{"runId":"`+id+`","timeoutMs":20000}`),
			func(p tool.Progress) { reports <- p })
	}()
	first := <-reports // the run as the wait found it
	if first.Step != 1 || first.RunID != id || first.Name != "two" || first.Phase != "First" || first.Running != 1 {
		t.Fatalf("first report %+v", first)
	}
	// Cancelling the run ends its slow agent, and the wait reports it.
	call(t, s, tool.WorkflowCancel, map[string]string{"runId": id})
	res := <-done
	if output(t, res).StopReason != engine.StopCancelled {
		t.Fatalf("%+v", res)
	}
	close(reports)
	last := first
	for p := range reports {
		if p.Step <= last.Step {
			t.Fatalf("steps do not grow: %+v after %+v", p, last)
		}
		last = p
	}
	if last.Failed != 1 || last.Running != 0 {
		t.Fatalf("last report %+v", last)
	}
}

func TestBackground_AfterACancelStatusAndWaitCountTheSameAgents(t *testing.T) {
	s, _ := newSet(t, slowRules, tool.Options{})
	// 32 agents, 16 slots: half are still queued when the cancel lands.
	id := startBackground(t, s, "export const meta = { name: 'many', description: 'more agents than slots' }\n"+
		"return await parallel(Array.from({ length: 32 }, (_, i) => () => agent('slow ' + i)))")
	for {
		in := info(t, call(t, s, tool.WorkflowWait, map[string]any{"runId": id, "timeoutMs": 20}))
		if in.Agents.Running == 16 {
			break
		}
	}
	call(t, s, tool.WorkflowCancel, map[string]string{"runId": id})
	st := info(t, call(t, s, tool.WorkflowStatus, map[string]string{"runId": id}))
	out := output(t, call(t, s, tool.WorkflowWait, map[string]any{"runId": id}))
	a := out.Agents
	if st.Agents.Running != 0 || st.Agents.Done != a.Completed+a.Replayed || st.Agents.Failed != a.Failed+a.TimedOut || st.Agents.Cancelled != a.Cancelled {
		t.Fatalf("status counts %+v, wait counts %+v", st.Agents, a)
	}
	if a.Cancelled != 32 {
		t.Fatalf("wait counts %+v, want 32 cancelled", a)
	}
}
