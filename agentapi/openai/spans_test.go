package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/wfrun/wfrun/agentapi"
)

// spanAttrs returns a span's attributes as strings.
func spanAttrs(s tracetest.SpanStub) map[string]string {
	m := map[string]string{}
	for _, kv := range s.Attributes {
		m[string(kv.Key)] = kv.Value.Emit()
	}
	return m
}

func TestTurnsAndToolCallsAreSpansUnderTheAgentsAndRequestsCarryTheirTraceContext(t *testing.T) {
	s := newServer(t,
		callTools(usage{prompt: 10, completion: 5}, call{"c1", "lookup", `{"q":"a"}`}, call{"c2", "broken", `{}`}),
		reply("done", usage{prompt: 20, completion: 3, cached: 4}),
	)
	cfg := testConfig(s)
	cfg.Toolbox = &toolbox{tools: fakeTools("lookup", "broken"), fn: func(_ context.Context, name string, _ json.RawMessage) (string, error) {
		if name == "broken" {
			return "", errors.New("disk on fire")
		}
		return "found", nil
	}}
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	ctx, agent := tp.Tracer("test").Start(context.Background(), "invoke_agent test")
	res, err := mustNew(t, cfg).Run(ctx, agentapi.Request{AgentID: "ag_1", Prompt: "look it up"})
	agent.End()
	if err != nil || res.Status != agentapi.StatusCompleted {
		t.Fatalf("Run = %+v, %v", res, err)
	}

	byName := map[string][]tracetest.SpanStub{}
	for _, sp := range exp.GetSpans() {
		byName[sp.Name] = append(byName[sp.Name], sp)
	}
	agentID := agent.SpanContext().SpanID()
	chats := byName["chat gpt-4o-mini"]
	if len(chats) != 2 {
		t.Fatalf("%d chat spans, want one per turn: %v", len(chats), byName)
	}
	for i, c := range chats {
		if c.Parent.SpanID() != agentID || c.SpanKind != trace.SpanKindClient {
			t.Errorf("chat %d: parent %s kind %v, want the agent's span and client", i, c.Parent.SpanID(), c.SpanKind)
		}
		want := fmt.Sprintf("00-%s-%s-01", c.SpanContext.TraceID(), c.SpanContext.SpanID())
		if got := s.requests()[i].header.Get("traceparent"); got != want {
			t.Errorf("request %d: traceparent %q, want its chat span's %q", i, got, want)
		}
	}
	last := spanAttrs(chats[1])
	for k, v := range map[string]string{"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
		"gen_ai.request.model": "gpt-4o-mini", "gen_ai.response.model": "test", "gen_ai.response.id": "chatcmpl-test",
		"gen_ai.usage.input_tokens": "20", "gen_ai.usage.output_tokens": "3", "gen_ai.usage.cache_read.input_tokens": "4",
		"gen_ai.response.finish_reasons": `["stop"]`, "server.address": "127.0.0.1"} {
		if last[k] != v {
			t.Errorf("chat span %s = %q, want %q", k, last[k], v)
		}
	}
	for _, c := range []struct {
		name, id string
		failed   bool
	}{{"lookup", "c1", false}, {"broken", "c2", true}} {
		spans := byName["execute_tool "+c.name]
		if len(spans) != 1 {
			t.Fatalf("%d spans for %s", len(spans), c.name)
		}
		sp := spans[0]
		a := spanAttrs(sp)
		if sp.Parent.SpanID() != agentID || a["gen_ai.tool.name"] != c.name || a["gen_ai.tool.call.id"] != c.id ||
			a["gen_ai.operation.name"] != "execute_tool" {
			t.Errorf("tool span %s: parent %s, attributes %v", c.name, sp.Parent.SpanID(), a)
		}
		if failed := sp.Status.Code == codes.Error; failed != c.failed || (c.failed && a["error.type"] != "tool_error") {
			t.Errorf("tool span %s: status %v, error.type %q", c.name, sp.Status, a["error.type"])
		}
	}
	// The agent's span learns which model answered.
	ro := agent.(sdktrace.ReadOnlySpan)
	var model string
	for _, kv := range ro.Attributes() {
		if kv.Key == "gen_ai.response.model" {
			model = kv.Value.AsString()
		}
	}
	if model != "test" {
		t.Errorf("the agent span's gen_ai.response.model is %q, want test", model)
	}
}

func TestAFailedTurnIsAnErrorSpanOfItsKind(t *testing.T) {
	s := newServer(t, fail(http.StatusBadRequest, "", "no such thing"))
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	ctx, agent := tp.Tracer("test").Start(context.Background(), "agent")
	res, _ := mustNew(t, testConfig(s)).Run(ctx, agentapi.Request{AgentID: "ag_1", Prompt: "x"})
	agent.End()
	if res.Status != agentapi.StatusFailed {
		t.Fatalf("result %+v", res)
	}
	for _, sp := range exp.GetSpans() {
		if sp.Name == "chat gpt-4o-mini" {
			if sp.Status.Code != codes.Error || spanAttrs(sp)["error.type"] != "task_failed" {
				t.Errorf("chat span status %v, attributes %v", sp.Status, spanAttrs(sp))
			}
			return
		}
	}
	t.Fatal("no chat span")
}

func TestWithoutASpanNoTraceContextIsSent(t *testing.T) {
	s := newServer(t, reply("ok", usage{}))
	run(t, mustNew(t, testConfig(s)), agentapi.Request{Prompt: "x"})
	if h := s.requests()[0].header.Get("traceparent"); h != "" {
		t.Errorf("traceparent %q sent without a span", h)
	}
}
