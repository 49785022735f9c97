package main

import (
	"context"
	"time"

	"github.com/wfrun/wfrun/engine/trace"
)

// traceFlushTimeout bounds how long wfrun waits, on its way out, for the
// collector to take the spans still buffered.
const traceFlushTimeout = 5 * time.Second

// tracingOf is the trace configuration of the command line: --otlp-endpoint
// and the OTEL_* variables. A configuration the exporter cannot honour is a
// bad invocation.
func tracingOf(o *options, e env) (trace.Options, error) {
	opts := trace.Options{Endpoint: o.otlpEndpoint, Getenv: e.getenv, Version: version(),
		OnError: func(err error) { notice(e, "traces: %v", err) }}
	if !trace.Enabled(opts) {
		return opts, nil
	}
	if err := trace.Check(opts); err != nil {
		return opts, usagef("%v", err)
	}
	return opts, nil
}

// startTracing returns the tracer that exports the runs' spans, or nil when
// no exporter is configured (the engine then gets no observer at all), and
// the function that sends what is still buffered. A failed export is a
// notice (once, until an export succeeds again), never a failed run. A tracer that cannot be built (tracingOf has
// checked the configuration, so only unreadable OTEL_RESOURCE_ATTRIBUTES
// are left) costs the traces, not the run: a notice says so.
func startTracing(opts trace.Options, e env) (*trace.Tracer, func()) {
	if !trace.Enabled(opts) {
		return nil, func() {}
	}
	t, err := trace.Start(context.Background(), opts)
	if err != nil {
		notice(e, "%v; running without traces", err)
		return nil, func() {}
	}
	return t, func() {
		ctx, cancel := context.WithTimeout(context.Background(), traceFlushTimeout)
		defer cancel()
		if err := t.Shutdown(ctx); err != nil {
			notice(e, "traces: the collector did not take the last spans within %s: %v", traceFlushTimeout, err)
		}
	}
}
