package mcpserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/ledger"
	"github.com/wfrun/wfrun/engine/mcpserver"
	"github.com/wfrun/wfrun/engine/subagent"
	"github.com/wfrun/wfrun/engine/tool"
)

// subagentServer is a server with sub-agents on an engine that keeps
// runs; the manager closes before the engine.
func subagentServer(t *testing.T, owner string) (*mcpserver.Server, *engine.Engine) {
	t.Helper()
	rules, err := fake.Parse([]byte(`{"rules":[{"match":"^slow","delayMs":200}]}`))
	if err != nil {
		t.Fatal(err)
	}
	eng, err := engine.New(engine.Config{FakeRules: rules, RunsDir: t.TempDir() + "/runs"})
	if err != nil {
		t.Fatal(err)
	}
	var m *subagent.Manager
	m, err = subagent.New(eng, subagent.Options{ChildTools: func(c subagent.Caller) agentapi.Toolbox { return tool.ChildTools(m, c) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := m.Close(ctx); err != nil {
			t.Error(err)
		}
		if err := eng.Close(ctx); err != nil {
			t.Error(err)
		}
	})
	return mcpserver.New(eng, mcpserver.Options{Owner: owner, Subagents: m}), eng
}

// listener is a client that records logging messages and resource
// updates.
type listener struct {
	mu      sync.Mutex
	logs    []*mcp.LoggingMessageParams
	updates []string
}

func (l *listener) connect(t *testing.T, s *mcpserver.Server) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	served := make(chan error, 1)
	go func() { served <- s.Run(context.Background(), st) }()
	mc := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			l.mu.Lock()
			l.logs = append(l.logs, req.Params)
			l.mu.Unlock()
		},
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			l.mu.Lock()
			l.updates = append(l.updates, req.Params.URI)
			l.mu.Unlock()
		},
	})
	cs, err := mc.Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		select {
		case <-served:
		case <-time.After(10 * time.Second):
			t.Error("the server did not end the session within 10s")
		}
	})
	return cs
}

func (l *listener) wait(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		l.mu.Lock()
		ok := cond()
		l.mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10 s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func TestServer_ASubagentsReportsReachItsParentAsNotifications(t *testing.T) {
	s, _ := subagentServer(t, "")
	l := &listener{}
	cs := l.connect(t, s)
	if err := cs.SetLoggingLevel(context.Background(), &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	started := callTool(t, cs, "subagent_start", map[string]any{"prompt": "slow survey of A"})
	var e subagent.Entry
	structured(t, started, &e)
	uri := tool.SubagentURI(e.ChildID)
	if err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	l.wait(t, "the report of turn one", func() bool { return len(l.logs) == 1 && len(l.updates) == 1 })
	l.mu.Lock()
	msg := l.logs[0]
	update := l.updates[0]
	l.mu.Unlock()
	data, _ := json.Marshal(msg.Data)
	var report struct {
		Message, ChildID, Status, Report, Resource string
		Turn                                       int
	}
	_ = json.Unmarshal(data, &report)
	if msg.Logger != "wfrun.subagents" || msg.Level != "info" || report.ChildID != e.ChildID || report.Turn != 1 ||
		report.Status != "completed" || report.Report != "slow survey of A" || report.Resource != uri ||
		report.Message != "sub-agent "+e.ChildID+": turn 1 completed: slow survey of A" || update != uri {
		t.Fatalf("the notifications: %s, update %s", data, update)
	}

	read, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatal(err)
	}
	var res tool.SubagentResource
	if err := json.Unmarshal([]byte(read.Contents[0].Text), &res); err != nil || res.ChildID != e.ChildID || len(res.History) != 1 || res.History[0].Text != "slow survey of A" {
		t.Fatalf("the resource: %s %v", read.Contents[0].Text, err)
	}

	// Another session (another owner) can neither read nor subscribe.
	other := (&listener{}).connect(t, s)
	if _, err := other.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri}); err == nil {
		t.Fatal("another session read the sub-agent")
	}
	if err := other.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri}); err == nil {
		t.Fatal("another session subscribed to the sub-agent")
	}
	if res := callTool(t, other, "subagent_send", map[string]any{"childId": e.ChildID, "message": "hi"}); !res.IsError || !strings.Contains(text(res), "no sub-agent") {
		t.Fatalf("another session's send: %s", text(res))
	}
}

func TestServer_ASessionWithAnOwnerOfItsOwnClosesItsSubagentsWhenItEnds(t *testing.T) {
	for _, c := range []struct {
		owner string
		want  ledger.SubagentStatus
	}{{"", ledger.SubagentCancelled}, {"mcp", ledger.SubagentIdle}} {
		s, eng := subagentServer(t, c.owner)
		cs := (&listener{}).connect(t, s)
		var e subagent.Entry
		structured(t, callTool(t, cs, "subagent_start", map[string]any{"prompt": "quick"}), &e)
		if r := callTool(t, cs, "subagent_result", map[string]any{"childId": e.ChildID, "timeoutMs": 10000}); r.IsError {
			t.Fatal(text(r))
		}
		_ = cs.Close()
		s.Wait()
		if got, err := eng.Ledger().GetSubagent(context.Background(), e.ChildID); err != nil || got.Status != c.want {
			t.Fatalf("owner %q: after the session the sub-agent is %+v (%v), want %s", c.owner, got, err, c.want)
		}
	}
}
