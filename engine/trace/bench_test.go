package trace_test

import (
	"context"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/trace"
	"github.com/wfrun/wfrun/internal/testkit/otlptest"
)

// The figures these benchmarks produce are recorded in docs/benchmarks.md.
// Run: go test -run '^$' -bench . -benchtime 3s -count 3 ./engine/trace/

const benchScript = `export const meta = { name: 'bench', description: 'one phase, four agents' }
phase('fan out')
const r = await Promise.all(['a', 'b', 'c', 'd'].map(x => agent('task ' + x)))
return r.length`

// BenchmarkRun runs a 4-agent, one-phase script with the fake provider at
// zero delay: without an observer (what the CLI does when no exporter is
// configured), with a Tracer over a no-op provider, over the SDK with no
// exporter, over the SDK batching to an exporter that drops everything,
// and exporting over OTLP to a collector on loopback.
func BenchmarkRun(b *testing.B) {
	col := otlptest.New(b)
	cases := []struct {
		name     string
		observer func(b *testing.B) (engine.Observer, func())
	}{
		{"no-observer", func(*testing.B) (engine.Observer, func()) { return nil, func() {} }},
		{"noop-provider", func(*testing.B) (engine.Observer, func()) {
			return trace.New(noop.NewTracerProvider()), func() {}
		}},
		{"sdk-no-exporter", func(*testing.B) (engine.Observer, func()) {
			tp := sdktrace.NewTracerProvider()
			return trace.New(tp), func() { _ = tp.Shutdown(context.Background()) }
		}},
		{"sdk-batch-discard", func(*testing.B) (engine.Observer, func()) {
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
			return trace.New(tp), func() { _ = tp.Shutdown(context.Background()) }
		}},
		{"otlp-loopback", func(b *testing.B) (engine.Observer, func()) {
			t, err := trace.Start(context.Background(), trace.Options{Endpoint: col.Endpoint(), Getenv: envOf(nil)})
			if err != nil {
				b.Fatal(err)
			}
			return t, func() { _ = t.Shutdown(context.Background()) }
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			obs, stop := c.observer(b)
			cfg := engine.Config{}
			if obs != nil {
				cfg.Observer = obs
			}
			eng, err := engine.New(cfg)
			if err != nil {
				b.Fatal(err)
			}
			req := engine.WorkflowStartRequest{Script: benchScript, Parent: "bench"}
			b.ReportAllocs()
			for b.Loop() {
				if res := eng.Run(context.Background(), req); res.StopReason != engine.StopCompleted {
					b.Fatalf("%+v", res)
				}
			}
			b.StopTimer()
			_ = eng.Close(context.Background())
			stop()
		})
	}
}
