package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/engine"
	wftemporal "github.com/wfrun/wfrun/engine/temporal"
)

// TestTemporalE2E_EveryWorkflowToolWorksOverMCP drives wfrun mcp --temporal
// with the official Go MCP client: a background run, its status and wait,
// a resume of it, and the list, against a worker of the dev server.
func TestTemporalE2E_EveryWorkflowToolWorksOverMCP(t *testing.T) {
	addr := startTemporalDev(t, "Temporal dev server at")
	payloads := filepath.Join(t.TempDir(), "payloads")
	opts := wftemporal.Options{TaskQueue: "mcp-e2e", Payloads: wftemporal.DirStore{Dir: payloads}}
	c, err := wftemporal.Dial(addr, "", opts)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p := fake.New(fake.Options{})
	eng, err := engine.New(engine.Config{Providers: []agentapi.Provider{p}, DefaultProvider: p.Name()})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(context.Background())
	w := wftemporal.NewWorker(c, eng, opts)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	code := make(chan int, 1)
	stderr := &syncBuffer{}
	go func() {
		code <- runMain([]string{"mcp", "--provider", "fake", "--temporal", addr, "--task-queue", "mcp-e2e", "--payloads", payloads, "--runs-dir", t.TempDir()},
			env{stdin: inR, stdout: outW, stderr: stderr, getenv: func(string) string { return "" }})
		outW.Close()
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v0"}, nil).Connect(context.Background(),
		&mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	call := func(name string, args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			text := ""
			if res != nil && len(res.Content) > 0 {
				text = res.Content[0].(*mcp.TextContent).Text
			}
			t.Fatalf("%s: %v %s\n%s", name, err, text, stderr.String())
		}
		return res.Content[0].(*mcp.TextContent).Text
	}
	script := "export const meta = { name: 'far', description: 'x' }\nreturn [await agent('one'), await agent('two')]"
	started := call("workflow", map[string]any{"script": script, "background": true})
	i := strings.Index(started, "wf_")
	if i < 0 {
		t.Fatalf("no run id in %q", started)
	}
	id := started[i : i+19]
	if st := call("workflow_status", map[string]any{"runId": id}); !strings.Contains(st, `workflow "far" (`+id+`, background)`) {
		t.Fatalf("workflow_status: %s", st)
	}
	if res := call("workflow_wait", map[string]any{"runId": id, "timeoutMs": 120000}); !strings.HasPrefix(res, `workflow "far" completed`) {
		t.Fatalf("workflow_wait: %s", res)
	}
	if res := call("workflow", map[string]any{"script": script, "resumeFromRunId": id}); !strings.Contains(res, "completed") {
		t.Fatalf("a resume: %s", res)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(call("workflow_list", map[string]any{}), id) {
		if time.Now().After(deadline) {
			t.Fatal("workflow_list never listed the background run")
		}
		time.Sleep(200 * time.Millisecond)
	}
	cs.Close()
	select {
	case c := <-code:
		if c != exitCompleted {
			t.Fatalf("exit %d\n%s", c, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("wfrun mcp did not exit after stdin closed")
	}
}
