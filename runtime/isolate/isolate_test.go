package isolate_test

import (
	"context"
	"testing"

	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/agentapi/workspace"
	"github.com/wfrun/wfrun/internal/eventcheck"
	"github.com/wfrun/wfrun/internal/leaktest"
	"github.com/wfrun/wfrun/meta"
	"github.com/wfrun/wfrun/runtime"
	"github.com/wfrun/wfrun/runtime/isolate"
	"github.com/wfrun/wfrun/sandbox"
)

func TestMain(m *testing.M) {
	workspace.Dispatch(map[string]func([]string) int{isolate.ModeWord: isolate.Main})
	leaktest.VerifyTestMain(m)
}

func TestRun_AScriptRunsInAChildProcessLikeInProcess(t *testing.T) {
	s, err := sandbox.Parse("script.js", "phase('one'); const r = await parallel([() => agent('a'), () => agent('b')]); log('done'); return r")
	if err != nil {
		t.Fatal(err)
	}
	rec := &eventcheck.Recorder{}
	out := isolate.Run(context.Background(), runtime.Config{RunID: "wf_iso", Parent: "t", Script: s,
		Meta: meta.WorkflowMeta{Name: "t", Description: "d"}, Provider: fake.New(fake.Options{}), Emit: rec.Record})
	<-out.Drained
	if out.Err != nil || string(out.Value) != `["a","b"]` {
		t.Fatalf("%s %v", out.Value, out.Err)
	}
	if err := eventcheck.Check(rec.Events(), eventcheck.Options{}); err != nil {
		t.Fatal(err)
	}
	if n := len(rec.Of(runtime.EventAgentEnd)); n != 2 || out.Agents.Completed != 2 {
		t.Fatalf("%d ends, %+v", n, out.Agents)
	}
}
