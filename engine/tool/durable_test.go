package tool_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/ralph"
	"github.com/wfrun/wfrun/engine/tool"
)

// durableSet returns the tools of owner on an engine that keeps its runs in runs.
func durableSet(t *testing.T, runs, rules, owner string) *tool.Set {
	t.Helper()
	cfg := engine.Config{RunsDir: runs}
	if rules != "" {
		cfg.FakeRules = mustRules(t, rules)
	}
	eng, _ := newEngine(t, cfg)
	return tool.New(eng, tool.Options{Owner: owner})
}

const breaksAfterTwo = `export const meta = { name: 'two-then-check', description: 'two agents, then a check that may fail' }
const a = await agent('first')
const b = await agent('second')
if (!args?.fixed) throw new Error('the check is wrong')
return [a, b]`

func TestWorkflow_AFailedRunSaysHowToResumeAndResumingReplaysItsAgents(t *testing.T) {
	runs := t.TempDir()
	s := durableSet(t, runs, "", "me")
	failed := call(t, s, tool.Workflow, map[string]any{"script": breaksAfterTwo})
	if !failed.IsError || !strings.Contains(failed.Text, `resumeFromRunId "`+failed.RunID+`"`) {
		t.Fatalf("the failure does not say how to resume:\n%s", failed.Text)
	}
	// Someone else cannot resume it.
	other := durableSet(t, runs, "", "someone-else")
	if res := call(t, other, tool.Workflow, map[string]any{"script": breaksAfterTwo, "resumeFromRunId": failed.RunID}); !res.IsError || !strings.Contains(res.Text, "no run") {
		t.Fatalf("another owner resumed it: %s", res.Text)
	}
	res := call(t, s, tool.Workflow, map[string]any{"script": breaksAfterTwo, "args": map[string]bool{"fixed": true}, "resumeFromRunId": failed.RunID})
	if res.IsError {
		t.Fatalf("resume: %s", res.Text)
	}
	out := output(t, res)
	if out.Agents.Replayed != 2 || out.Agents.Completed != 0 || string(out.Value) != `["first","second"]` {
		t.Fatalf("resumed %+v value %s", out.Agents, out.Value)
	}
}

func TestWorkflowListAndStatus_SurviveARestartOfTheHost(t *testing.T) {
	runs := t.TempDir()
	before := durableSet(t, runs, "", "mcp")
	done := call(t, before, tool.Workflow, map[string]any{"script": trivialScript})
	if done.IsError {
		t.Fatal(done.Text)
	}
	after := durableSet(t, runs, "", "mcp") // a new engine on the same runs: the host restarted
	list := call(t, after, tool.WorkflowList, map[string]any{})
	if !strings.Contains(list.Text, done.RunID) || !strings.Contains(list.Text, "completed") {
		t.Fatalf("workflow_list after a restart:\n%s", list.Text)
	}
	status := call(t, after, tool.WorkflowStatus, map[string]any{"runId": done.RunID})
	if status.IsError || status.Structured.(engine.RunInfo).Status != engine.RunCompleted {
		t.Fatalf("workflow_status after a restart: %+v", status)
	}
	if res := call(t, durableSet(t, runs, "", "other"), tool.WorkflowStatus, map[string]any{"runId": done.RunID}); !res.IsError {
		t.Fatal("another owner sees the run after a restart")
	}
}

const trivialScript = `export const meta = { name: 'hello', description: 'one agent' }
return await agent('hi')`

func TestCancelAll_CancelsOnlyTheRunsOfItsOwnSet(t *testing.T) {
	eng, _ := newEngine(t, engine.Config{FakeRules: mustRules(t, slowRules)})
	a := tool.New(eng, tool.Options{Owner: "shared"})
	b := tool.New(eng, tool.Options{Owner: "shared"})
	slow := `export const meta = { name: 'slow', description: 'waits' }
return await agent('slow one')`
	ra := call(t, a, tool.Workflow, map[string]any{"script": slow, "background": true})
	rb := call(t, b, tool.Workflow, map[string]any{"script": slow, "background": true})
	a.CancelAll("a's session ended")
	runA, _ := eng.Lookup("shared", ra.RunID)
	runB, _ := eng.Lookup("shared", rb.RunID)
	select {
	case <-runA.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("a's run was not cancelled")
	}
	if _, done := runB.Result(); done {
		t.Fatal("b's run was cancelled with a's session")
	}
	runB.Cancel("test over")
}

func TestRalph_TheToolRunsTheLoop(t *testing.T) {
	rules := `{"rules":[
	  {"match":"^You are round 1 of","reply":{"status":"continue","summary":"half done","evidence":[],"nextSteps":["do the rest"]}},
	  {"match":"^You are round 2 of","reply":{"status":"complete","summary":"all done","evidence":["the tests pass"],"nextSteps":[]}}]}`
	s, _ := newSet(t, rules, tool.Options{Owner: "me"})
	res := call(t, s, tool.Ralph, map[string]any{"objective": "finish the job"})
	if res.IsError || !strings.Contains(res.Text, "ended complete after 2 rounds") || !strings.Contains(res.Text, "evidence: the tests pass") {
		t.Fatalf("%+v", res)
	}
	if out := res.Structured.(ralph.Result); out.Ending != ralph.EndComplete || out.Rounds != 2 {
		t.Fatalf("structured %+v", out)
	}

	failing := `{"rules":[{"match":"^You are round 1 of","reply":{"status":"continue","summary":"s","evidence":[],"nextSteps":[]}}]}`
	s2, _ := newSet(t, failing, tool.Options{Owner: "me"})
	res = call(t, s2, tool.Ralph, map[string]any{"objective": "finish the job"})
	if !res.IsError || !strings.Contains(res.Text, "ended round-failed after 0 rounds") || !strings.Contains(res.Text, "needs next steps") {
		t.Fatalf("%+v", res)
	}
	raw, _ := json.Marshal(res.Structured)
	if !strings.Contains(string(raw), `"ending":"round-failed"`) {
		t.Fatalf("structured %s", raw)
	}
	if bad := call(t, s2, tool.Ralph, map[string]any{"objective": ""}); !bad.IsError {
		t.Fatal("an empty objective was accepted")
	}
}
