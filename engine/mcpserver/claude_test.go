package mcpserver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/enginetest"
	"github.com/wfrun/wfrun/engine/mcpserver"
	"github.com/wfrun/wfrun/engine/tool"
)

// claudeServer serves an engine whose workspace is laid out as a Claude
// Code project: a saved workflow in .claude/workflows/ and a script file
// the parent iterates on.
func claudeServer(t *testing.T) (*mcpserver.Server, string) {
	t.Helper()
	ws := t.TempDir()
	for rel, src := range map[string]string{
		".claude/workflows/review-launcher.js": "export const meta = {name: 'review-launcher', description: 'Launches a review of one PR'}\nreturn 'launched ' + args.pr",
		"flows/draft.js":                       "export const meta = {name: 'draft', description: 'first draft'}\nreturn 'draft 1'",
	} {
		path := filepath.Join(ws, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rules, err := fake.Parse([]byte(slowRules))
	if err != nil {
		t.Fatal(err)
	}
	eng := enginetest.New(t, engine.Config{FakeRules: rules, Workspace: ws,
		WorkflowsDirs: engine.WorkflowSearchDirs(nil, ws, "")})
	return mcpserver.New(eng, mcpserver.Options{Personas: []tool.Persona{{Name: "reviewer", Description: "Reviews code"}}}), ws
}

func TestServer_TheWorkflowToolRunsASavedWorkflowByName(t *testing.T) {
	s, _ := claudeServer(t)
	c := connect(t, s)
	res := c.call(t, "workflow", map[string]any{"name": "review-launcher", "args": map[string]int{"pr": 42}})
	if res.IsError || !strings.Contains(text(res), `"launched 42"`) || !strings.Contains(text(res), filepath.Join(".claude", "workflows", "review-launcher.js")) {
		t.Fatalf("%s", text(res))
	}

	// The description ends with the saved workflows, after the personas.
	tools, err := c.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Name != "workflow" {
			continue
		}
		i, j := strings.Index(tl.Description, "- reviewer: Reviews code"), strings.LastIndex(tl.Description, "SAVED WORKFLOWS")
		if i < 0 || j < i || !strings.HasSuffix(tl.Description, "- review-launcher: Launches a review of one PR\n") {
			t.Errorf("the description does not end with the saved workflows:\n%s", tl.Description[max(0, len(tl.Description)-400):])
		}
		if !strings.Contains(tl.Description, "edit the file and call workflow again with the same scriptPath") {
			t.Errorf("the description does not say how to iterate on a file")
		}
	}

	res = c.call(t, "workflow", map[string]any{"name": "no-such"})
	if !res.IsError || !strings.Contains(text(res), "review-launcher") {
		t.Fatalf("%s", text(res))
	}
	res = c.call(t, "workflow", map[string]any{})
	if !res.IsError || !strings.Contains(text(res), "scriptPath (a .js file of the workspace)") {
		t.Fatalf("%s", text(res))
	}
}

func TestServer_AParentIteratesOnAScriptPath(t *testing.T) {
	s, ws := claudeServer(t)
	c := connect(t, s)
	file := filepath.Join(ws, "flows", "draft.js")
	res := c.call(t, "workflow", map[string]any{"scriptPath": "flows/draft.js"})
	if res.IsError || !strings.Contains(text(res), `"draft 1"`) || !strings.Contains(text(res), "Script: "+file) {
		t.Fatalf("%s", text(res))
	}
	if err := os.WriteFile(file, []byte("export const meta = {name: 'draft', description: 'second draft'}\nreturn 'draft 2'"), 0o644); err != nil {
		t.Fatal(err)
	}
	res = c.call(t, "workflow", map[string]any{"scriptPath": "flows/draft.js"})
	if res.IsError || !strings.Contains(text(res), `"draft 2"`) {
		t.Fatalf("the edited file did not run: %s", text(res))
	}

	// Claude Code's precedence: scriptPath, then script, then name.
	inline := "export const meta = {name: 'inline', description: 'd'}\nreturn 'inline'"
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"scriptPath": "flows/draft.js", "script": inline, "name": "review-launcher"}, `"draft 2"`},
		{map[string]any{"script": inline, "name": "review-launcher"}, `"inline"`},
	} {
		if res := c.call(t, "workflow", tc.args); res.IsError || !strings.Contains(text(res), tc.want) {
			t.Errorf("%v: %s, want %s", tc.args, text(res), tc.want)
		}
	}
	for _, bad := range []string{"../outside.js", "/etc/passwd", "flows/none.js"} {
		if res := c.call(t, "workflow", map[string]any{"scriptPath": bad}); !res.IsError || !strings.Contains(text(res), "was refused before it ran") {
			t.Errorf("scriptPath %s: %s", bad, text(res))
		}
	}
}

// loggingScript logs 30 lines, then waits on a sub-agent: a slow one when
// slow is set, so that the run is still going when it is looked at.
func loggingScript(slow bool) string {
	prompt := "quick"
	if slow {
		prompt = "slow down"
	}
	return "export const meta = {name: 'chatty', description: 'logs a lot'}\nphase('Count')\n" +
		"for (let i = 1; i <= 30; i++) log('line ' + i)\nreturn await agent('" + prompt + "')"
}

func TestServer_LogLinesReachTheCaller(t *testing.T) {
	s, _ := claudeServer(t)
	c := connect(t, s)

	// The foreground result ends with the last 20 lines; the progress
	// notifications carry the phase and the latest line.
	params := &mcp.CallToolParams{Name: "workflow", Arguments: map[string]any{"script": loggingScript(false)}}
	params.SetProgressToken("tok-log")
	res, err := c.CallTool(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	out := text(res)
	if res.IsError || !strings.HasSuffix(out, "  line 30\n") || !strings.Contains(out, "  line 11\n") || strings.Contains(out, "  line 10\n") {
		t.Fatalf("the result does not end with the last 20 log lines:\n%s", out)
	}
	waitUntil(t, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, p := range c.progress {
			if strings.HasPrefix(p.Message, "Count · ") && strings.HasSuffix(p.Message, "· log: line 30") {
				return true
			}
		}
		return false
	})

	// A background run: workflow_status and workflow_wait show the lines.
	res = c.call(t, "workflow", map[string]any{"script": loggingScript(true), "background": true})
	var started tool.Started
	structured(t, res, &started)
	waitUntil(t, func() bool {
		res := c.call(t, "workflow_status", map[string]any{"runId": started.RunID})
		var in engine.RunInfo
		structured(t, res, &in)
		return strings.HasSuffix(text(res), "  line 30\n") && len(in.Logs) == engine.MaxLogLines && in.Logs[0] == "line 11"
	})
	res = c.call(t, "workflow_wait", map[string]any{"runId": started.RunID, "timeoutMs": 10})
	if !strings.Contains(text(res), "Still running") || !strings.HasSuffix(text(res), "  line 30\n") {
		t.Fatalf("%s", text(res))
	}
	c.call(t, "workflow_cancel", map[string]any{"runId": started.RunID})
	res = c.call(t, "workflow_wait", map[string]any{"runId": started.RunID})
	if !strings.Contains(text(res), "was cancelled") || !strings.HasSuffix(text(res), "  line 30\n") {
		t.Fatalf("%s", text(res))
	}
}

func TestLogTail_KeepsTheLastLinesWithinItsBounds(t *testing.T) {
	var tail engine.LogTail
	for i := 1; i <= 30; i++ {
		tail.Add(fmt.Sprintf("line %d", i))
	}
	if l := tail.Lines(); len(l) != engine.MaxLogLines || l[0] != "line 11" || tail.Last() != "line 30" {
		t.Fatalf("lines = %q", l)
	}
	tail = engine.LogTail{}
	tail.Add("a\nb")
	for i := 0; i < 10; i++ {
		tail.Add(strings.Repeat("x", 1000)) // cut to 400 bytes each
	}
	size := 0
	for _, l := range tail.Lines() {
		size += len(l)
		if len(l) > 400 {
			t.Fatalf("a line of %d bytes was kept", len(l))
		}
	}
	if size > engine.MaxLogBytes || tail.Lines()[0] == "a" {
		t.Fatalf("%d bytes kept: %q", size, tail.Lines())
	}
}
