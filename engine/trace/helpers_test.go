package trace_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/enginetest"
	"github.com/wfrun/wfrun/engine/trace"
)

// recorded is a Tracer whose spans go to an in-memory exporter as each one
// ends.
type recorded struct {
	*trace.Tracer
	exp *tracetest.InMemoryExporter
	tp  *sdktrace.TracerProvider
}

func newRecorded(t *testing.T) *recorded {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	return &recorded{Tracer: trace.New(tp), exp: exp, tp: tp}
}

// tree indexes the ended spans of one test.
type tree struct {
	t     *testing.T
	spans tracetest.SpanStubs
}

func (r *recorded) tree(t *testing.T) tree { return tree{t: t, spans: r.exp.GetSpans()} }

// named returns the one span called name, failing the test unless there is
// exactly one.
func (tr tree) named(name string) tracetest.SpanStub {
	tr.t.Helper()
	var found []tracetest.SpanStub
	for _, s := range tr.spans {
		if s.Name == name {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		tr.t.Fatalf("%d spans named %q; the spans: %s", len(found), name, tr.names())
	}
	return found[0]
}

// all returns the spans called name.
func (tr tree) all(name string) []tracetest.SpanStub {
	var found []tracetest.SpanStub
	for _, s := range tr.spans {
		if s.Name == name {
			found = append(found, s)
		}
	}
	return found
}

func (tr tree) names() string {
	var n []string
	for _, s := range tr.spans {
		n = append(n, s.Name)
	}
	return strings.Join(n, ", ")
}

// wantParent fails the test unless child's parent is parent.
func (tr tree) wantParent(child, parent tracetest.SpanStub) {
	tr.t.Helper()
	if child.Parent.SpanID() != parent.SpanContext.SpanID() || child.SpanContext.TraceID() != parent.SpanContext.TraceID() {
		tr.t.Errorf("%q is a child of span %s, want %q (%s)", child.Name, child.Parent.SpanID(), parent.Name, parent.SpanContext.SpanID())
	}
}

// wantWithin fails the test unless inner lies within outer's time.
func (tr tree) wantWithin(inner, outer tracetest.SpanStub) {
	tr.t.Helper()
	if inner.StartTime.Before(outer.StartTime) || inner.EndTime.After(outer.EndTime) {
		tr.t.Errorf("%q (%s – %s) is not within %q (%s – %s)", inner.Name, inner.StartTime, inner.EndTime,
			outer.Name, outer.StartTime, outer.EndTime)
	}
}

// attrs returns a span's attributes as strings.
func attrs(s tracetest.SpanStub) map[string]string {
	m := map[string]string{}
	for _, kv := range s.Attributes {
		m[string(kv.Key)] = kv.Value.Emit()
	}
	return m
}

// wantAttrs fails the test unless s has each of want.
func wantAttrs(t *testing.T, s tracetest.SpanStub, want map[string]string) {
	t.Helper()
	got := attrs(s)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%q: %s = %q, want %q (all: %v)", s.Name, k, got[k], v, got)
		}
	}
}

// wantNoAttr fails the test if s has key.
func wantNoAttr(t *testing.T, s tracetest.SpanStub, key attribute.Key) {
	t.Helper()
	if v, ok := attrs(s)[string(key)]; ok {
		t.Errorf("%q has %s = %q; want none", s.Name, key, v)
	}
}

// run runs script on an engine observed by r with cfg's providers.
func (r *recorded) run(t *testing.T, cfg engine.Config, script string) (engine.WorkflowResult, []engine.Event) {
	t.Helper()
	cfg.Observer = r.Tracer
	eng := enginetest.New(t, cfg)
	res, rec := enginetest.Run(t, eng, engine.WorkflowStartRequest{Script: script})
	return res, rec.Events()
}

// chatServer is an OpenAI-compatible endpoint on loopback: a prompt that
// says "use the tool" gets a call of the lookup tool first, a prompt that
// says "refuse" gets a 400, anything else a text answer. It records the
// traceparent header of every request.
type chatServer struct {
	*httptest.Server
	mu           sync.Mutex
	traceparents []string
}

func newChatServer(t *testing.T) *chatServer {
	s := &chatServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *chatServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.traceparents = append(s.traceparents, r.Header.Get("traceparent"))
	s.mu.Unlock()
	data, _ := io.ReadAll(r.Body)
	var req goopenai.ChatCompletionRequest
	_ = json.Unmarshal(data, &req)
	var prompt string
	toolResult := false
	for _, m := range req.Messages {
		if m.Role == goopenai.ChatMessageRoleUser && prompt == "" {
			prompt = m.Content
		}
		toolResult = toolResult || m.Role == goopenai.ChatMessageRoleTool
	}
	msg := map[string]any{"role": "assistant", "content": "ok: " + prompt}
	finish := "stop"
	switch {
	case strings.Contains(prompt, "refuse"):
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":{"message":"this request is refused","type":"invalid_request_error"}}`)
		return
	case strings.Contains(prompt, "use the tool") && !toolResult:
		msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"id": "call_1", "type": "function", "function": map[string]any{"name": "lookup", "arguments": `{"q":"x"}`}}}}
		finish = "tool_calls"
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "test-model-0613",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13},
	})
}

func (s *chatServer) headers() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.traceparents...)
}

// lookupTools is a toolbox with one tool, lookup, that answers "42".
type lookupTools struct{}

func (lookupTools) Tools(context.Context) ([]agentapi.Tool, error) {
	return []agentapi.Tool{{Name: "lookup", Description: "looks something up",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)}}, nil
}

func (lookupTools) Call(_ context.Context, name string, _ json.RawMessage) (string, error) {
	if name != "lookup" {
		return "", fmt.Errorf("no tool %s", name)
	}
	return "42", nil
}
