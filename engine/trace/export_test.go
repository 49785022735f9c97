package trace_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/enginetest"
	"github.com/wfrun/wfrun/engine/trace"
	"github.com/wfrun/wfrun/internal/testkit/otlptest"
)

func envOf(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestEnabledOnlyWhenAnEndpointIsNamed(t *testing.T) {
	for _, c := range []struct {
		name     string
		endpoint string
		env      map[string]string
		want     bool
	}{
		{"nothing set", "", nil, false},
		{"the flag", "http://localhost:4318", nil, true},
		{"the general endpoint", "", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, true},
		{"the traces endpoint", "", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, true},
		{"only headers", "", map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "a=b"}, false},
		{"the SDK disabled", "", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"}, false},
		{"the exporter none", "", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "none"}, false},
		{"the flag beats the SDK disabled", "http://localhost:4318", map[string]string{"OTEL_SDK_DISABLED": "true"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := trace.Enabled(trace.Options{Endpoint: c.endpoint, Getenv: envOf(c.env)}); got != c.want {
				t.Errorf("Enabled = %v, want %v", got, c.want)
			}
		})
	}
}

func TestCheckRefusesWhatTheExporterCannotDoWithASentence(t *testing.T) {
	for _, c := range []struct {
		name     string
		endpoint string
		env      map[string]string
		want     string // in the error; "" means no error
	}{
		{"a base URL", "http://localhost:4318", nil, ""},
		{"a full URL", "https://collector.example:4318/custom/traces", nil, ""},
		{"no scheme", "localhost:4318", nil, "write one like http://localhost:4318"},
		{"another scheme", "grpc://localhost:4317", nil, "not an http:// or https:// URL"},
		{"grpc", "", map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "OTEL_EXPORTER_OTLP_PROTOCOL is \"grpc\""},
		{"grpc for traces", "", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"}, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"},
		{"json", "", map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, ""},
		{"traces protocol wins", "", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, ""},
		{"zipkin", "", map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, "exports traces over OTLP only"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := trace.Check(trace.Options{Endpoint: c.endpoint, Getenv: envOf(c.env)})
			switch {
			case c.want == "" && err != nil:
				t.Errorf("Check: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("Check = %v, want an error saying %q", err, c.want)
			}
		})
	}
}

func TestStartExportsARunToAnOTLPCollectorOnLoopback(t *testing.T) {
	col := otlptest.New(t)
	parent := "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	tracer, err := trace.Start(context.Background(), trace.Options{
		Endpoint: col.Endpoint(), Version: "v9.9.9",
		Getenv: envOf(map[string]string{"TRACEPARENT": parent}),
	})
	if err != nil {
		t.Fatal(err)
	}
	eng := enginetest.New(t, engine.Config{Observer: tracer})
	res, _ := enginetest.Run(t, eng, engine.WorkflowStartRequest{Script: `export const meta = { name: 'exported', description: 'goes to a collector' }
phase('only')
return await agent('hello', { label: 'greeter' })`})
	if res.StopReason != engine.StopCompleted {
		t.Fatalf("result %+v", res)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tracer.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	spans := col.WaitFor(3, 5*time.Second)
	byName := map[string]otlptest.Span{}
	for _, s := range spans {
		byName[s.Name] = s
	}
	root, phase, agent := byName["invoke_workflow exported"], byName["phase only"], byName["invoke_agent greeter"]
	if root.Span == nil || phase.Span == nil || agent.Span == nil {
		t.Fatalf("the collector got %d spans: %v", len(spans), byName)
	}
	if root.TraceID() != "0af7651916cd43dd8448eb211c80319c" || root.ParentID() != "b7ad6b7169203331" {
		t.Errorf("run span in trace %s under %s, want TRACEPARENT's", root.TraceID(), root.ParentID())
	}
	if phase.ParentID() != root.SpanID() || agent.ParentID() != phase.SpanID() {
		t.Errorf("tree: phase under %s, agent under %s; run %s, phase %s", phase.ParentID(), agent.ParentID(), root.SpanID(), phase.SpanID())
	}
	if root.Attr("wfrun.run.id") != res.RunID || root.Attr("gen_ai.operation.name") != "invoke_workflow" ||
		agent.Attr("gen_ai.operation.name") != "invoke_agent" || agent.Attr("gen_ai.usage.input_tokens") == "" {
		t.Errorf("attributes: run %v, agent %v", root.Attributes, agent.Attributes)
	}
	if root.Resource["service.name"] != "wfrun" || root.Resource["service.version"] != "v9.9.9" ||
		root.Resource["telemetry.sdk.language"] != "go" || root.Scope != trace.ScopeName {
		t.Errorf("resource %v, scope %q", root.Resource, root.Scope)
	}
}

func TestAFailedExportIsReportedOnce(t *testing.T) {
	col := otlptest.New(t)
	col.Close() // nothing listens there any more
	var reported []error
	tracer, err := trace.Start(context.Background(), trace.Options{Endpoint: col.Endpoint(), Getenv: envOf(nil),
		OnError: func(err error) { reported = append(reported, err) }})
	if err != nil {
		t.Fatal(err)
	}
	eng := enginetest.New(t, engine.Config{Observer: tracer})
	for range 2 {
		enginetest.Run(t, eng, engine.WorkflowStartRequest{Script: `export const meta = { name: 'lost', description: 'nobody listens' }
return 1`})
		if err := tracer.ForceFlush(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := tracer.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if len(reported) != 1 || !strings.Contains(reported[0].Error(), "connection refused") {
		t.Fatalf("reported %v, want one connection refused", reported)
	}
}
