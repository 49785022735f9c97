package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/internal/testkit/testbin"
)

// The end-to-end test of the acp provider: the real CLI, with a real ACP
// agent (internal/testkit/testacp, built here with the same Go SDK) that reads a
// file of the workspace through the client, asks permission for an edit,
// and answers in a schema.

// buildTestACP builds the scripted ACP agent.
func buildTestACP(t *testing.T) string {
	t.Helper()
	return testbin.BuildT(t, "github.com/wfrun/wfrun/internal/testkit/testacp")
}

func TestEndToEnd_ACPAgentReadsTheWorkspaceAndAnswersInASchema(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an ACP agent")
	}
	agent := buildTestACP(t)
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.md"), []byte("alpha\nbeta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(t.TempDir(), "acp.js")
	src := `export const meta = { name: 'acp-cli', description: 'an ACP agent from the command line' }
const READ = { type: 'object', properties: { line: { type: 'string' } }, required: ['line'] }
const seen = await agent('@read notes.md 2 1\n@permit edit notes.md\n@report')
const line = await agent('@say {"line": "beta"}', { schema: READ })
return { seen, line: line.line }
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	o := invoke(t, call{args: []string{script, "--acp-agent", "test=" + agent, "--provider", "acp:test",
		"--workspace", ws, "--sandbox", "read-only", "--events", "-"}})
	o.wantCode(t, exitCompleted)
	res := o.result(t)
	if got := compact(t, res.Value); got != `{"seen":"read notes.md: beta\n; permit edit notes.md: reject_once","line":"beta"}` {
		t.Fatalf("value = %s", got)
	}
	var notes []string
	for _, ev := range readEvents(t, o.stderr) {
		if ev.Type == engine.EventAgentEnd {
			if ev.Outcome != "completed" {
				t.Fatalf("agent.end %+v", ev)
			}
			notes = append(notes, ev.Note)
		}
	}
	if len(notes) != 2 || !strings.Contains(notes[0], "wfrun refused 1 permission request") || !strings.Contains(notes[0], "read-only") {
		t.Fatalf("notes %q: the refused edit must be noted", notes)
	}
}

func TestACPConfigDeclaresWhatCheckAccepts(t *testing.T) {
	agent := buildTestACP(t)
	cfg := filepath.Join(t.TempDir(), "acp.json")
	data, _ := json.Marshal(map[string]any{"agents": map[string]any{
		"claude": map[string]any{"command": agent, "args": []string{"-models", "claude-haiku-4-5"}, "capabilities": map[string]any{"model": true}},
	}})
	if err := os.WriteFile(cfg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("export const meta = { name: 'c', description: 'check' }\n"+src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ok := wfrun(t, "check", write("model.js", `return await agent('hi', { model: 'haiku', schema: { type: 'object' } })`),
		"--acp-config", cfg, "--provider", "acp:claude")
	ok.wantCode(t, exitCompleted)
	bad := wfrun(t, "check", write("tools.js", `return await agent('hi', { tools: ['Read'] })`),
		"--acp-config", cfg, "--provider", "acp:claude")
	bad.wantCode(t, exitFailed)
	if !strings.Contains(bad.stdout, `"errorCode": "UNSUPPORTED_OPTION"`) || !strings.Contains(bad.stdout, `acp:claude`) {
		t.Fatalf("stdout %s", bad.stdout)
	}
	// Running it: the model alias finds the session's model option.
	run := wfrun(t, write("run.js", `return await agent('@model\n@report', { model: 'haiku' })`),
		"--acp-config", cfg, "--provider", "acp:claude", "--workspace", dir, "--events", "-")
	run.wantCode(t, exitCompleted)
	if got := compact(t, run.result(t).Value); got != `"model claude-haiku-4-5"` {
		t.Fatalf("value = %s", got)
	}
	if n := len(readEvents(t, run.stderr)); n == 0 {
		t.Fatal("no events")
	}
}

func TestABadACPFlagIsABadInvocation(t *testing.T) {
	for _, args := range [][]string{
		{"testdata/hello.js", "--acp-agent", "no name here"},
		{"testdata/hello.js", "--acp-agent", "a=agent 'unclosed"},
		{"testdata/hello.js", "--acp-config", ""},
	} {
		o := wfrun(t, args...)
		o.wantCode(t, exitUsage)
		if o.stdout != "" || !strings.Contains(o.stderr, "acp") {
			t.Errorf("%q: stdout %q stderr %q", args, o.stdout, o.stderr)
		}
	}
	cfg := filepath.Join(t.TempDir(), "acp.json")
	if err := os.WriteFile(cfg, []byte(`{"agents": {"a": {"command": "x", "cwd": "/"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	o := wfrun(t, "check", "testdata/hello.js", "--acp-config", cfg)
	o.wantCode(t, exitFailed)
	if !strings.Contains(o.stdout, `unknown field \"cwd\"`) {
		t.Fatalf("stdout %s", o.stdout)
	}
	dup := wfrun(t, "check", "testdata/hello.js", "--acp-agent", "a=x", "--acp-agent", "a=y")
	dup.wantCode(t, exitFailed)
	if !strings.Contains(dup.stdout, "already configured") {
		t.Fatalf("stdout %s", dup.stdout)
	}
}
