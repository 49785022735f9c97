package mcpserver_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/enginetest"
	"github.com/wfrun/wfrun/engine/mcpserver"
	"github.com/wfrun/wfrun/engine/tool"
	"github.com/wfrun/wfrun/internal/testkit/leaktest"
)

func TestMain(m *testing.M) {
	engine.Init() // isolated runs and sandboxed tools re-execute this test binary
	leaktest.VerifyTestMain(m, leaktest.StateDir())
}

const slowRules = `{"rules":[{"match":"^slow","delayMs":30000}]}`

// newServer returns a server on a fresh engine; the engine is closed and
// every run's events checked when the test ends.
func newServer(t *testing.T, opts mcpserver.Options) (*mcpserver.Server, *engine.Engine) {
	t.Helper()
	rules, err := fake.Parse([]byte(slowRules))
	if err != nil {
		t.Fatal(err)
	}
	eng := enginetest.New(t, engine.Config{FakeRules: rules})
	return mcpserver.New(eng, opts), eng
}

// client is one MCP session with the server, over an in-memory pipe.
type client struct {
	*mcp.ClientSession
	mu       sync.Mutex
	progress []*mcp.ProgressNotificationParams
}

func connect(t *testing.T, s *mcpserver.Server) *client {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	served := make(chan error, 1)
	go func() { served <- s.Run(context.Background(), st) }()
	c := &client{}
	mc := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			c.mu.Lock()
			c.progress = append(c.progress, req.Params)
			c.mu.Unlock()
		},
	})
	cs, err := mc.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.ClientSession = cs
	t.Cleanup(func() {
		_ = cs.Close()
		select {
		case <-served:
		case <-time.After(10 * time.Second):
			t.Error("the server did not end the session within 10s")
		}
	})
	return c
}

func (c *client) call(t *testing.T, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := c.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", name, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// structured decodes the structured content into v.
func structured(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("structured content %s: %v", raw, err)
	}
}

func TestServer_ListsTheToolsWithTheirSchemas(t *testing.T) {
	s, _ := newServer(t, mcpserver.Options{Personas: []tool.Persona{{Name: "reviewer", Description: "Reviews code"}}})
	c := connect(t, s)
	res, err := c.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		if tl.Name == "workflow" && !strings.Contains(tl.Description, "- reviewer: Reviews code") {
			t.Errorf("the workflow tool does not list the personas")
		}
	}
	slices.Sort(names)
	if strings.Join(names, ",") != "agent,ralph,workflow,workflow_cancel,workflow_list,workflow_status,workflow_wait" {
		t.Fatalf("tools %v", names)
	}
}

func TestServer_WorkflowReturnsTheResultAndScriptErrorsAreToolErrors(t *testing.T) {
	s, _ := newServer(t, mcpserver.Options{})
	c := connect(t, s)
	res := c.call(t, "workflow", map[string]any{"script": "export const meta = { name: 'sum', description: 'adds' }\nreturn args.a + args.b", "args": map[string]int{"a": 2, "b": 3}})
	if res.IsError || !strings.HasPrefix(text(res), `workflow "sum" completed (0 agents, 0 tokens, `) || !strings.HasSuffix(text(res), "\n5") {
		t.Fatalf("%s", text(res))
	}
	var out engine.WorkflowResult
	structured(t, res, &out)
	if out.StopReason != engine.StopCompleted || string(out.Value) != "5" {
		t.Fatalf("structured %+v", out)
	}
	res = c.call(t, "workflow", map[string]any{"script": "export const meta = { name: 'bad', description: 'x' }\nconst n = 1\nreturn n.nope.deeper"})
	if !res.IsError || !strings.Contains(text(res), "SCRIPT_ERROR at line 3") {
		t.Fatalf("%s", text(res))
	}
}

func TestServer_AForegroundRunSendsProgressNotifications(t *testing.T) {
	s, _ := newServer(t, mcpserver.Options{})
	c := connect(t, s)
	params := &mcp.CallToolParams{Name: "workflow", Arguments: map[string]any{
		"script": "export const meta = { name: 'p', description: 'x' }\nphase('Ask')\nreturn await parallel([() => agent('a'), () => agent('b')])"}}
	params.SetProgressToken("tok-1")
	if _, err := c.CallTool(context.Background(), params); err != nil {
		t.Fatal(err)
	}
	// Notifications are delivered asynchronously; the last may trail the result.
	deadline := time.Now().Add(60 * time.Second) // generous: a loaded machine is slow, an event still comes
	for {
		c.mu.Lock()
		got := append([]*mcp.ProgressNotificationParams(nil), c.progress...)
		c.mu.Unlock()
		if len(got) > 0 && strings.Contains(got[len(got)-1].Message, "agents 2/2 done") {
			for i, p := range got {
				if p.ProgressToken != "tok-1" || (i > 0 && p.Progress <= got[i-1].Progress) {
					t.Fatalf("notification %d: %+v", i, p)
				}
			}
			if !strings.HasPrefix(got[len(got)-1].Message, "Ask · ") {
				t.Fatalf("last message %q", got[len(got)-1].Message)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("progress so far: %+v", got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestServer_CancellingTheCallCancelsTheRun(t *testing.T) {
	s, _ := newServer(t, mcpserver.Options{})
	c := connect(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	params := &mcp.CallToolParams{Name: "workflow", Arguments: map[string]any{
		"script": "export const meta = { name: 'slow', description: 'x' }\nreturn await agent('slow down')"}}
	params.SetProgressToken(1)
	errc := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, params)
		errc <- err
	}()
	waitUntil(t, func() bool { // the agent has started
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.progress) > 0 && strings.Contains(c.progress[len(c.progress)-1].Message, "1 running")
	})
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("the cancelled call returned no error")
	}
	waitUntil(t, func() bool {
		var list tool.RunList
		structured(t, c.call(t, "workflow_list", nil), &list)
		return len(list.Runs) == 1 && list.Runs[0].Status == engine.RunCancelled
	})
}

func TestServer_ABackgroundRunCanBeStartedWaitedForAndCancelled(t *testing.T) {
	s, _ := newServer(t, mcpserver.Options{})
	c := connect(t, s)
	res := c.call(t, "workflow", map[string]any{"script": "export const meta = { name: 'slow', description: 'x' }\nreturn await agent('slow down')", "background": true})
	var started tool.Started
	structured(t, res, &started)
	if res.IsError || !strings.HasPrefix(started.RunID, "wf_") {
		t.Fatalf("%s", text(res))
	}
	res = c.call(t, "workflow_wait", map[string]any{"runId": started.RunID, "timeoutMs": 50})
	if res.IsError || !strings.Contains(text(res), "is running") {
		t.Fatalf("%s", text(res))
	}
	res = c.call(t, "workflow_cancel", map[string]any{"runId": started.RunID})
	var in engine.RunInfo
	structured(t, res, &in)
	if res.IsError || in.Status != engine.RunCancelled {
		t.Fatalf("%s", text(res))
	}
	res = c.call(t, "workflow_wait", map[string]any{"runId": started.RunID})
	if !res.IsError || !strings.Contains(text(res), "was cancelled") {
		t.Fatalf("%s", text(res))
	}
}

func TestServer_SessionsCannotSeeEachOthersRuns(t *testing.T) {
	s, _ := newServer(t, mcpserver.Options{})
	a, b := connect(t, s), connect(t, s)
	var started tool.Started
	structured(t, a.call(t, "workflow", map[string]any{"script": "export const meta = { name: 'slow', description: 'x' }\nreturn await agent('slow down')", "background": true}), &started)
	for _, name := range []string{"workflow_status", "workflow_cancel", "workflow_wait"} {
		if res := b.call(t, name, map[string]any{"runId": started.RunID}); !res.IsError || !strings.Contains(text(res), "no run") {
			t.Fatalf("%s from another session: %s", name, text(res))
		}
	}
	if _, err := b.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: tool.ResultURI(started.RunID)}); err == nil {
		t.Fatal("another session read the run's result")
	}
	var list tool.RunList
	structured(t, b.call(t, "workflow_list", nil), &list)
	if len(list.Runs) != 0 {
		t.Fatalf("another session lists %+v", list.Runs)
	}
	if res := a.call(t, "workflow_status", map[string]any{"runId": started.RunID}); res.IsError {
		t.Fatalf("the owner cannot see its run: %s", text(res))
	}
}

func TestServer_ALongValueIsAResourceNamedByTheNotice(t *testing.T) {
	s, _ := newServer(t, mcpserver.Options{MaxResultChars: 50})
	c := connect(t, s)
	res := c.call(t, "workflow", map[string]any{"script": "export const meta = { name: 'long', description: 'x' }\nreturn 'abc'.repeat(100)"})
	var out tool.Output
	structured(t, res, &out)
	if res.IsError || out.ValueCut == nil || !strings.Contains(text(res), out.ValueCut.Resource) {
		t.Fatalf("%s", text(res))
	}
	rr, err := c.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: out.ValueCut.Resource})
	if err != nil {
		t.Fatal(err)
	}
	var full engine.WorkflowResult
	if err := json.Unmarshal([]byte(rr.Contents[0].Text), &full); err != nil || string(full.Value) != `"`+strings.Repeat("abc", 100)+`"` {
		t.Fatalf("resource %s: %v", rr.Contents[0].Text, err)
	}
	if _, err := c.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "wfrun://runs/wf_nope/result"}); err == nil {
		t.Fatal("an unknown run's result was served")
	}
}

func TestServer_ASessionThatEndsCancelsItsRuns(t *testing.T) {
	ends := make(chan string, 4)
	s, _ := newServer(t, mcpserver.Options{OnEvent: func(ev engine.Event) {
		if ev.Type == engine.EventRunEnd {
			raw, _ := json.Marshal(ev.Result)
			ends <- ev.RunID + " " + string(raw)
		}
	}})
	st, ct := mcp.NewInMemoryTransports()
	served := make(chan error, 1)
	go func() { served <- s.Run(context.Background(), st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "v0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "workflow", Arguments: map[string]any{
		"script": "export const meta = { name: 'slow', description: 'x' }\nreturn await agent('slow down')", "background": true}})
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	var started tool.Started
	structured(t, res, &started)
	_ = cs.Close()
	<-served // Run returns once the session's runs were told to stop
	select {
	case end := <-ends:
		if !strings.HasPrefix(end, started.RunID+" ") || !strings.Contains(end, `"stopReason":"cancelled"`) || !strings.Contains(end, "session") {
			t.Fatalf("run.end %s", end)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the run did not end within 10s of its session")
	}
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second) // generous: a loaded machine is slow, an event still comes
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("the condition did not hold within 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestServer_WithAFixedOwnerALaterSessionSeesTheRuns(t *testing.T) {
	s, _ := newServer(t, mcpserver.Options{Owner: "mcp"})
	a := connect(t, s)
	done := a.call(t, "workflow", map[string]any{"script": "export const meta = { name: 'quick', description: 'x' }\nreturn await agent('hi')"})
	var out tool.Output
	structured(t, done, &out)
	b := connect(t, s)
	var list tool.RunList
	structured(t, b.call(t, "workflow_list", nil), &list)
	if len(list.Runs) != 1 || list.Runs[0].RunID != out.RunID || list.Runs[0].Owner != "mcp" {
		t.Fatalf("the later session lists %+v", list.Runs)
	}
}
