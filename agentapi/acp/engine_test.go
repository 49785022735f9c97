package acp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/acp"
	"github.com/wfrun/wfrun/agentapi/internal/proc/proctest"
	"github.com/wfrun/wfrun/agentapi/workspace"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/enginetest"
	"github.com/wfrun/wfrun/internal/testkit/gittest"
	"github.com/wfrun/wfrun/runtime/eventcheck"
)

// gitWorkspace is a git repository with one committed file, notes.md.
func gitWorkspace(t *testing.T) *workspace.Workspace {
	t.Helper()
	dir := gittest.Repo(t, map[string]string{"notes.md": "one\ntwo\nthree\n"})
	ws, err := workspace.New(workspace.Config{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// acpEngine is an engine whose default provider is the test agent over
// ACP; groups returns the process groups it started, to check that they are
// gone.
func acpEngine(t *testing.T, ws *workspace.Workspace) (eng *engine.Engine, groups func() []int) {
	t.Helper()
	p, err := acp.New(acp.Config{Name: "testacp", Agent: acp.Agent{Command: acp.BuiltTestAgent()}, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu   sync.Mutex
		pgid []int
	)
	acp.SetStarted(p, func(g int) {
		mu.Lock()
		pgid = append(pgid, g)
		mu.Unlock()
	})
	eng = enginetest.New(t, engine.Config{Providers: []agentapi.Provider{p}, DefaultProvider: p.Name()})
	return eng, func() []int {
		mu.Lock()
		defer mu.Unlock()
		return append([]int(nil), pgid...)
	}
}

func TestAScriptRunsItsChildrenThroughAnACPAgent(t *testing.T) {
	ws := gitWorkspace(t)
	eng, groups := acpEngine(t, ws)
	script := `
export const meta = { name: 'acp-e2e', description: 'children over ACP' }
const COUNT = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }
const text = await agent('@say Let me read the notes.\n@tool read notes.md\n@read notes.md 2 1\n@report')
const counted = await agent('@say {"n": "three"}\n[2]@say {"n": 3}', { schema: COUNT, label: 'count' })
const iso = await agent({ prompt: '@write notes.md rewritten\n@say rewrote it', isolation: 'worktree' })
return { text, counted, iso: iso.result, status: iso.status }
`
	res, rec := enginetest.Run(t, eng, engine.WorkflowStartRequest{Script: script})
	if res.StopReason != engine.StopCompleted {
		t.Fatalf("%+v", res)
	}
	want := `{"text":"read notes.md: two","counted":{"n":3},"iso":"rewrote it","status":"completed"}`
	if string(res.Value) != want {
		t.Fatalf("value %s\nwant  %s", res.Value, want)
	}
	if res.AgentsSpawned != 3 || res.Agents.Completed != 3 || len(res.Worktrees) != 1 {
		t.Fatalf("agents %d %+v, worktrees %+v", res.AgentsSpawned, res.Agents, res.Worktrees)
	}
	if data, _ := os.ReadFile(filepath.Join(res.Worktrees[0].Path, "notes.md")); string(data) != "rewritten" {
		t.Fatalf("the isolated child's worktree holds %q", data)
	}
	ends := rec.Of(engine.EventAgentEnd)
	if len(ends) != 3 {
		t.Fatalf("%d agent.end events", len(ends))
	}
	for _, ev := range ends {
		if ev.Label == "count" && !strings.Contains(ev.Note, "corrected") {
			t.Errorf("the corrected schema child's agent.end has no note saying so: %+v", ev)
		}
	}
	for _, g := range groups() {
		proctest.AssertGroupGone(t, g)
	}
}

func TestCancellingARunCancelsItsACPChild(t *testing.T) {
	eng, groups := acpEngine(t, gitWorkspace(t))
	marker := filepath.Join(t.TempDir(), "cancel")
	rec := &eventcheck.Recorder{}
	run, err := eng.Start(context.Background(), engine.WorkflowStartRequest{Parent: "test", OnEvent: rec.Record,
		Script: `export const meta = { name: 'acp-cancel', description: 'a child that waits' }
return await agent(` + jsString("@wait "+marker) + `)`})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for _, err := os.Stat(marker + ".waiting"); err != nil; _, err = os.Stat(marker + ".waiting") {
		if time.Now().After(deadline) {
			t.Fatal("the agent never started its turn")
		}
		time.Sleep(10 * time.Millisecond)
	}
	run.Cancel("enough")
	res := run.Wait()
	if res.StopReason != engine.StopCancelled || res.Agents.Cancelled != 1 {
		t.Fatalf("%+v", res)
	}
	if err := eventcheck.Check(rec.Events(), eventcheck.Options{RunEvents: true}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(marker); string(data) != "cancelled" {
		t.Fatalf("the agent did not see session/cancel: %q", data)
	}
	for _, g := range groups() {
		proctest.AssertGroupGone(t, g)
	}
}

func TestOptionsACPCannotHonourAreRefusedBeforeTheRun(t *testing.T) {
	eng, groups := acpEngine(t, gitWorkspace(t))
	for _, opts := range []string{`{ tools: ['Read'] }`, `{ agentType: 'reviewer' }`, `{ maxTurns: 3 }`, `{ model: 'haiku' }`, `{ effort: 'high' }`} {
		res := eng.Check(engine.WorkflowStartRequest{Parent: "test",
			Script: "export const meta = { name: 'opts', description: 'refused' }\nreturn await agent('hi', " + opts + ")"})
		if res.OK || res.ErrorCode != engine.CodeUnsupportedOption || !strings.Contains(res.Error, `"acp:testacp" provider cannot honour`) {
			t.Errorf("%s: %+v", opts, res)
		}
	}
	if n := len(groups()); n != 0 {
		t.Fatalf("a check started %d agents", n)
	}
}

// jsString quotes s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
