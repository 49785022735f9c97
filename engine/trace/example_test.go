package trace_test

import (
	"context"
	"fmt"
	"sort"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/trace"
)

// A Tracer is the engine's Observer; every run becomes a tree of spans.
// Here they go to an in-memory exporter; trace.Start exports them over OTLP.
func Example() {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())

	eng, _ := engine.New(engine.Config{Observer: trace.New(tp)})
	defer eng.Close(context.Background())
	eng.Run(context.Background(), engine.WorkflowStartRequest{Parent: "example", Script: `
export const meta = { name: 'review', description: 'two reviewers, then a verdict' }
phase('review')
await Promise.all([agent('review the API', { label: 'api' }), agent('review the docs', { label: 'docs' })])
phase('verdict')
return await agent('decide', { label: 'judge' })`})

	var names []string
	for _, s := range exp.GetSpans() {
		names = append(names, s.Name)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Println(n)
	}
	// Output:
	// invoke_agent api
	// invoke_agent docs
	// invoke_agent judge
	// invoke_workflow review
	// phase review
	// phase verdict
}

// Start exports over OTLP/HTTP when the flag or the OTEL_* variables name
// an endpoint; a program checks Enabled first and installs no Tracer
// otherwise.
func ExampleStart() {
	opts := trace.Options{Endpoint: "http://localhost:4318"}
	if !trace.Enabled(opts) {
		return
	}
	tracer, err := trace.Start(context.Background(), opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	eng, _ := engine.New(engine.Config{Observer: tracer})
	// … start runs …
	_ = eng.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = tracer.Shutdown(ctx) // after Close: sends what is still buffered
	fmt.Println("traced")
	// Output: traced
}
