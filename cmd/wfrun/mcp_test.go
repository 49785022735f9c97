package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/tool"
	"github.com/wfrun/wfrun/runtime/eventcheck"
)

func TestTool_PrintsEveryToolsDefinition(t *testing.T) {
	o := wfrun(t, "tool")
	o.wantCode(t, exitCompleted)
	var defs []tool.Definition
	if err := json.Unmarshal([]byte(o.stdout), &defs); err != nil {
		t.Fatalf("stdout is not a list of definitions (%v):\n%s", err, o.stdout)
	}
	names := append(tool.Names(), tool.SubagentNames()...)
	if len(defs) != len(names) {
		t.Fatalf("%d definitions", len(defs))
	}
	for i, d := range defs {
		if d.Name != names[i] || d.Description == "" || !json.Valid(d.InputSchema) {
			t.Fatalf("definition %d: %+v", i, d)
		}
	}
	wfrun(t, "tool", "extra").wantCode(t, exitUsage)
}

func TestMCP_ServesTheToolsOnStdio(t *testing.T) {
	events := filepath.Join(t.TempDir(), "events.jsonl")
	inR, inW := io.Pipe()   // the client writes the server's stdin
	outR, outW := io.Pipe() // the server writes its stdout
	code := make(chan int, 1)
	stderr := &syncBuffer{}
	go func() {
		code <- runMain([]string{"mcp", "--provider", "fake", "--events", events, "--runs-dir", t.TempDir()}, env{stdin: inR, stdout: outW, stderr: stderr, getenv: func(string) string { return "" }})
		outW.Close()
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v0"}, nil).Connect(context.Background(),
		&mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "workflow", Arguments: map[string]any{
		"script": "export const meta = { name: 'stdio', description: 'x' }\nreturn await agent('over stdio')"}})
	if err != nil || res.IsError || !strings.HasSuffix(res.Content[0].(*mcp.TextContent).Text, `"over stdio"`) {
		t.Fatalf("%v %+v", err, res)
	}
	cs.Close() // closes the server's stdin
	select {
	case c := <-code:
		if c != exitCompleted {
			t.Fatalf("exit %d\n%s", c, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("wfrun mcp did not exit within 10s of stdin closing")
	}
	if runs := checkRunStreams(t, events); runs != 1 {
		t.Fatalf("%d runs in the event log, want 1", runs)
	}
}

// checkRunStreams reads an event log of several runs (wfrun mcp --events)
// and checks each run's stream with the shared checker. It returns the
// number of runs.
func checkRunStreams(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	byRun := map[string][]engine.Event{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		var ev engine.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("%s: not an event (%v): %s", path, err, line)
		}
		byRun[ev.RunID] = append(byRun[ev.RunID], ev)
	}
	for id, evs := range byRun {
		if err := eventcheck.Check(evs, eventcheck.Options{RunEvents: true}); err != nil {
			t.Errorf("%s: run %s: %v", path, id, err)
		}
	}
	return len(byRun)
}

func TestMCP_RefusesAnExposedHTTPServerWithoutAToken(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"mcp", "--http", "0.0.0.0:0"}, "pass --auth-token TOKEN"},
		{[]string{"mcp", "--http", ":0"}, "every interface"},
		{[]string{"mcp", "--auth-token", "x"}, "--auth-token protects --http"},
		{[]string{"mcp", "--args", "{}"}, "--args does not apply to mcp"},
		{[]string{"mcp", "script.js"}, "mcp takes no script"},
		{[]string{"check", "x.js", "--http", "127.0.0.1:1"}, "--http does not apply to check (check runs nothing and keeps nothing): it belongs to wfrun mcp; drop it"},
		{[]string{"x.js", "--print-script"}, "--print-script does not apply to a script run: it belongs to wfrun agent; drop it"},
	} {
		o := wfrun(t, tc.args...)
		o.wantCode(t, exitUsage)
		if !strings.Contains(o.stderr, tc.want) || o.stdout != "" {
			t.Errorf("%v: stderr %q", tc.args, o.stderr)
		}
	}
}

func TestTool_DescriptionListsThePersonasFound(t *testing.T) {
	_, home := agentsWorkspace(t)
	o := invoke(t, call{args: []string{"tool"}, environ: map[string]string{"HOME": home}})
	o.wantCode(t, exitCompleted)
	var defs []tool.Definition
	if err := json.Unmarshal([]byte(o.stdout), &defs); err != nil || len(defs) == 0 || defs[0].Name != tool.Workflow {
		t.Fatalf("definitions (%v):\n%s", err, o.stdout)
	}
	if !strings.Contains(defs[0].Description, "helper") {
		t.Errorf("the workflow tool's description does not name the persona helper of ~/.claude/agents:\n%s", defs[0].Description)
	}
}
