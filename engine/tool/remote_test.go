package tool_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/tool"
	"github.com/wfrun/wfrun/internal/wferr"
)

// remote is an Options.Remote that answers with a fixed result and the
// events of a run, and remembers what it was asked.
type remote struct {
	got []engine.WorkflowStartRequest
}

func (r *remote) run(_ context.Context, req engine.WorkflowStartRequest, onEvent func(engine.Event)) (engine.WorkflowResult, error) {
	r.got = append(r.got, req)
	if strings.Contains(req.Script, "refuse") {
		return engine.WorkflowResult{}, wferr.New(wferr.MetaInvalid, "the workflow has no meta")
	}
	onEvent(engine.Event{Type: engine.EventRunStart, RunID: "wf_remote"})
	onEvent(engine.Event{Type: engine.EventRunEnd, RunID: "wf_remote"})
	return engine.WorkflowResult{RunID: "wf_remote", Value: json.RawMessage(`"from afar"`), StopReason: engine.StopCompleted}, nil
}

func TestWorkflow_ARemoteRunsTheWorkflowToolsForegroundRuns(t *testing.T) {
	r := &remote{}
	s, _ := newSet(t, "", tool.Options{Owner: "parent", Remote: r.run})
	res := call(t, s, tool.Workflow, map[string]any{"script": `export const meta = {name: 'far', description: 'x'}
return 1`, "maxTotalAgents": 7})
	if res.IsError || !strings.Contains(res.Text, "from afar") || !strings.HasPrefix(res.Text, `workflow "far" completed`) || len(r.got) != 1 {
		t.Fatalf("result %+v, remote asked %d times", res, len(r.got))
	}
	if req := r.got[0]; req.Parent != "parent" || req.MaxTotalAgents != 7 || req.ScriptName != "workflow.js" {
		t.Fatalf("the remote got %+v", req)
	}
	refused := call(t, s, tool.Workflow, map[string]any{"script": "refuse"})
	if !refused.IsError || !strings.Contains(refused.Text, "META_INVALID") {
		t.Fatalf("a refused request: %+v", refused)
	}
}

func TestWorkflow_ARemoteRefusesBackgroundRunsAndResumeWithASentence(t *testing.T) {
	r := &remote{}
	s, _ := newSet(t, "", tool.Options{Remote: r.run})
	for _, in := range []map[string]any{
		{"script": `export const meta = {name: 'x', description: 'x'}`, "background": true},
		{"script": `export const meta = {name: 'x', description: 'x'}`, "resumeFromRunId": "wf_0123456789abcdef"},
	} {
		res := call(t, s, tool.Workflow, in)
		if !res.IsError || !strings.Contains(res.Text, "Temporal cluster") || len(r.got) != 0 {
			t.Fatalf("%v: %+v", in, res)
		}
	}
}
