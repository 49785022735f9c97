package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/engine"
)

// The end-to-end test of wfrun agent: the parent model (the mock's first
// fixture) answers the task with a workflow tool call carrying a script;
// wfrun runs it, the same mock answers the script's two children, and the
// parent's second turn, which sees the tool's result, is the answer.
func TestEndToEnd_AgentWritesAWorkflowWhoseChildrenTheSameMockAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a node server")
	}
	baseURL := startAimock(t, filepath.Join(aimockDir, "fixtures", "parent.json"))
	o := invoke(t, call{
		args:    []string{"agent", "Settle tabs versus spaces", "--print-script", "--events", "-"},
		environ: map[string]string{"OPENAI_BASE_URL": baseURL, "OPENAI_API_KEY": "mock", "WFRUN_MODEL": "gpt-4o-mini"},
	})
	o.wantCode(t, exitCompleted)
	if want := "Tabs let each reader choose the width; spaces look the same everywhere. Pick one per repository and enforce it with a formatter.\n"; o.stdout != want {
		t.Fatalf("stdout %q, want the parent's answer\nstderr:\n%s", o.stdout, o.stderr)
	}
	if !strings.Contains(o.stderr, "--- workflow script ---\nexport const meta = { name: 'tabs-or-spaces'") {
		t.Fatalf("--print-script did not show the script:\n%s", o.stderr)
	}
	evs := readEvents(t, o.stderr)
	var completed int
	var end *engine.Event
	for i, ev := range evs {
		switch ev.Type {
		case engine.EventAgentEnd:
			if ev.Outcome == "completed" {
				completed++
			}
		case engine.EventRunEnd:
			end = &evs[i]
		}
	}
	if completed != 2 || end == nil {
		t.Fatalf("the workflow's children: %d completed, run.end %v\n%s", completed, end, o.stderr)
	}
}

func TestAgent_NeedsOneTaskAndTheOpenAIProvider(t *testing.T) {
	o := wfrun(t, "agent")
	o.wantCode(t, exitUsage)
	if !strings.Contains(o.stderr, "agent takes one task") {
		t.Fatalf("%s", o.stderr)
	}
	o = wfrun(t, "agent", "do it", "--args", "{}")
	o.wantCode(t, exitUsage)
	if !strings.Contains(o.stderr, "--args does not apply to agent") {
		t.Fatalf("%s", o.stderr)
	}
	o = wfrun(t, "agent", "do it") // no OPENAI_* variables
	o.wantCode(t, exitFailed)
	if !strings.Contains(o.stderr, "needs the openai provider") || !strings.Contains(o.stderr, "OPENAI_API_KEY") || o.stdout != "" {
		t.Fatalf("stdout %q stderr %s", o.stdout, o.stderr)
	}
}
