package temporal_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/wfrun/wfrun/engine"
	wftemporal "github.com/wfrun/wfrun/engine/temporal"
	"github.com/wfrun/wfrun/engine/tool"
)

// toolOver is the workflow tool of owner with its runs on the cluster, as
// wfrun mcp --temporal wires it.
func toolOver(t *testing.T, cl *cluster, owner string) *tool.Set {
	t.Helper()
	eng, err := engine.New(engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close(context.Background()) })
	c := wftemporal.NewClient(cl.c, eng, cl.opts)
	return tool.New(eng, tool.Options{Owner: owner, Remote: c.Execute, RemoteRuns: c.Remote()})
}

func callTool(t *testing.T, s *tool.Set, name tool.Name, input any) tool.Result {
	t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	return s.Call(context.Background(), name, raw)
}

func TestEndToEnd_TheBackgroundToolsWorkOnTemporal(t *testing.T) {
	cl := newCluster(t)
	cl.worker(newCounting(300))
	s := toolOver(t, cl, "owner-a")

	short := `export const meta = {name: 'short', description: 'two agents'}
phase('Both')
log('starting')
const xs = await parallel([() => agent('one'), () => agent('two')])
return xs.length`
	started := callTool(t, s, tool.Workflow, map[string]any{"script": short, "background": true})
	if started.IsError || !strings.HasPrefix(started.RunID, "wf_") || !strings.Contains(started.Text, `workflow "short" started in the background`) {
		t.Fatalf("a background start: %+v", started)
	}
	status := callTool(t, s, tool.WorkflowStatus, map[string]any{"runId": started.RunID})
	if status.IsError || !strings.Contains(status.Text, `workflow "short" (`+started.RunID+`, background)`) {
		t.Fatalf("workflow_status: %+v", status)
	}
	waited := callTool(t, s, tool.WorkflowWait, map[string]any{"runId": started.RunID, "timeoutMs": 120000})
	if waited.IsError || !strings.HasPrefix(waited.Text, `workflow "short" completed`) {
		t.Fatalf("workflow_wait: %+v", waited)
	}
	done := callTool(t, s, tool.WorkflowStatus, map[string]any{"runId": started.RunID})
	info, ok := done.Structured.(engine.RunInfo)
	if !ok || info.Status != engine.RunCompleted || info.Agents.Done != 2 || info.Phase != "Both" || len(info.Logs) != 1 {
		t.Fatalf("workflow_status of the finished run: %+v", done)
	}

	long := `export const meta = {name: 'long', description: 'agents one after another'}
for (let i = 0; i < 100; i++) await agent('step ' + i)
return 'never'`
	second := callTool(t, s, tool.Workflow, map[string]any{"script": long, "background": true})
	if second.IsError {
		t.Fatalf("a second background start: %+v", second)
	}
	cancelled := callTool(t, s, tool.WorkflowCancel, map[string]any{"runId": second.RunID})
	if cancelled.IsError || !strings.Contains(cancelled.Text, "was cancelled") {
		t.Fatalf("workflow_cancel: %+v", cancelled)
	}

	// Another owner sees neither run.
	other := toolOver(t, cl, "owner-b")
	if r := callTool(t, other, tool.WorkflowStatus, map[string]any{"runId": started.RunID}); !r.IsError || !strings.Contains(r.Text, "no run") {
		t.Fatalf("another owner's workflow_status: %+v", r)
	}
	if r := callTool(t, other, tool.WorkflowCancel, map[string]any{"runId": second.RunID}); !r.IsError {
		t.Fatalf("another owner's workflow_cancel: %+v", r)
	}

	// workflow_list comes from visibility, which catches up.
	deadline := time.Now().Add(30 * time.Second)
	for {
		list := callTool(t, s, tool.WorkflowList, map[string]any{})
		if strings.Contains(list.Text, started.RunID) && strings.Contains(list.Text, second.RunID) &&
			strings.Contains(list.Text, "completed") && strings.Contains(list.Text, "was cancelled") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("workflow_list: %+v", list)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func TestEndToEnd_ResumeFromRunIdReplaysTheOldRunsFinishedAgents(t *testing.T) {
	cl := newCluster(t)
	p := newCounting(400)
	cl.worker(p)
	s := toolOver(t, cl, "owner-r")
	script := `export const meta = {name: 'steps', description: 'agents one after another'}
const out = []
for (let i = 0; i < 6; i++) out.push(await agent('step ' + i))
return out`
	first := callTool(t, s, tool.Workflow, map[string]any{"script": script, "background": true})
	if first.IsError {
		t.Fatalf("start: %+v", first)
	}
	deadline := time.Now().Add(time.Minute)
	for { // two agents done as the run itself saw them (so their results are in its history)
		st := callTool(t, s, tool.WorkflowStatus, map[string]any{"runId": first.RunID})
		if info, ok := st.Structured.(engine.RunInfo); ok && info.Agents.Done >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("two agents did not finish in a minute")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if r := callTool(t, s, tool.WorkflowCancel, map[string]any{"runId": first.RunID}); r.IsError {
		t.Fatalf("cancel: %+v", r)
	}
	kept := 0 // the agents whose results the old history holds
	for _, ev := range history(t, cl.c, first.RunID).GetEvents() {
		if ev.GetActivityTaskCompletedEventAttributes() != nil {
			kept++
		}
	}
	resumed := callTool(t, s, tool.Workflow, map[string]any{"script": script, "resumeFromRunId": first.RunID})
	if resumed.IsError || !strings.Contains(resumed.Text, "completed") {
		t.Fatalf("the resumed run: %+v", resumed)
	}
	if kept < 2 {
		t.Fatalf("the old run's history holds %d finished agents, want at least 2", kept)
	}
	p.mu.Lock()
	for i := 0; i < 6; i++ {
		want := 2 // the finished ones started once, in the old run; the rest again in the new one
		if i < kept {
			want = 1
		}
		if n := p.started["step "+string(rune('0'+i))]; n > want || (i < kept && n != 1) {
			t.Errorf("step %d started %d times at the provider, want at most %d (%d finished in the old run)", i, n, want, kept)
		}
	}
	p.mu.Unlock()
	// Another owner cannot resume it.
	other := toolOver(t, cl, "owner-x")
	if r := callTool(t, other, tool.Workflow, map[string]any{"script": script, "resumeFromRunId": first.RunID}); !r.IsError || !strings.Contains(r.Text, "no run") {
		t.Fatalf("another owner's resume: %+v", r)
	}
}
