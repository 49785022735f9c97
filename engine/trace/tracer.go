package trace

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine"
)

// ScopeName is the instrumentation scope of the spans a Tracer starts.
const ScopeName = "github.com/wfrun/wfrun/engine/trace"

// Tracer turns the runs of an engine into OpenTelemetry spans. It is an
// engine.Observer: set it as engine.Config.Observer. It is safe for
// concurrent use, and one Tracer may observe several engines.
//
// Spans are started and ended from the run's events, at the times the
// events carry, so a trace shows exactly what the event stream says: an
// agent span starts at its agent.start and ends at its agent.end, also
// when the run's watchdog ended the child for a provider that did not
// return.
type Tracer struct {
	tracer   oteltrace.Tracer
	provider *sdktrace.TracerProvider // set by Start: the provider it built and owns
	parent   oteltrace.SpanContext    // set by Start from TRACEPARENT: the parent of runs without one

	mu   sync.Mutex
	runs map[string]*runSpans // by run id, from StartRun to run.end
}

var _ engine.Observer = (*Tracer)(nil)

// New returns a Tracer that starts its spans with tp. The caller owns tp:
// Shutdown does not shut it down. Give it an SDK provider (with
// tracetest's in-memory exporter in a test, say), or use Start for OTLP.
func New(tp oteltrace.TracerProvider) *Tracer { return newTracer(tp, "") }

// newTracer is New with wfrun's version as the instrumentation scope's.
func newTracer(tp oteltrace.TracerProvider, version string) *Tracer {
	opts := []oteltrace.TracerOption{oteltrace.WithSchemaURL(SchemaURL)}
	if version != "" {
		opts = append(opts, oteltrace.WithInstrumentationVersion(version))
	}
	return &Tracer{tracer: tp.Tracer(ScopeName, opts...), runs: make(map[string]*runSpans)}
}

// Shutdown exports what is still buffered and stops the exporter of a
// Tracer made by Start, waiting at most until ctx is done; for a Tracer
// made by New it does nothing. Close the engine first, so that every run
// has ended its spans.
func (t *Tracer) Shutdown(ctx context.Context) error {
	if t.provider == nil {
		return nil
	}
	return t.provider.Shutdown(ctx)
}

// ForceFlush exports the ended spans a Tracer made by Start still holds,
// without waiting for the next batch; for a Tracer made by New it does
// nothing.
func (t *Tracer) ForceFlush(ctx context.Context) error {
	if t.provider == nil {
		return nil
	}
	return t.provider.ForceFlush(ctx)
}

// StartRun starts the run's span, a child of whatever span ctx carries
// (a caller's own trace, or a TRACEPARENT the CLI was started with), and
// returns ctx with it.
func (t *Tracer) StartRun(ctx context.Context, run engine.ObservedRun) context.Context {
	if t.parent.IsValid() && !oteltrace.SpanContextFromContext(ctx).IsValid() {
		ctx = oteltrace.ContextWithRemoteSpanContext(ctx, t.parent)
	}
	name := OperationWorkflow
	if run.Meta.Name != "" {
		name += " " + run.Meta.Name
	}
	ctx, span := t.tracer.Start(ctx, name, oteltrace.WithSpanKind(oteltrace.SpanKindInternal),
		oteltrace.WithAttributes(
			semconv.GenAIOperationNameInvokeWorkflow,
			semconv.GenAIWorkflowName(run.Meta.Name),
			AttrRunID.String(run.RunID),
			AttrMetaName.String(run.Meta.Name),
			AttrParent.String(run.Parent),
			AttrProvider.String(run.Provider),
		))
	if !span.SpanContext().IsValid() {
		return ctx // a no-op provider: nothing to follow, nothing to propagate
	}
	rs := newRunSpans(t.tracer, run, ctx, span)
	t.mu.Lock()
	t.runs[run.RunID] = rs
	t.mu.Unlock()
	return ctx
}

// StartChild returns ctx carrying the child's agent span, so that the
// provider's own spans (chat turns, tool calls) are its children and its
// requests carry the span's trace context. It also records what only the
// request knows: the persona, which then names the agent, and whether the
// answer is JSON.
func (t *Tracer) StartChild(ctx context.Context, req agentapi.Request) context.Context {
	rs := t.lookup(req.RunID)
	if rs == nil {
		return ctx
	}
	span := rs.agentSpan(req)
	if span == nil {
		return ctx
	}
	return oteltrace.ContextWithSpan(ctx, span)
}

// Event follows the run's event stream: phases and agents start and end
// their spans, run.end ends the rest.
func (t *Tracer) Event(ev engine.Event) {
	rs := t.lookup(ev.RunID)
	if rs == nil {
		return
	}
	switch ev.Type {
	case engine.EventRunStart:
		rs.span.SetAttributes(AttrConcurrency.Int(ev.Concurrency))
	case engine.EventPhase:
		rs.enterPhase(ev)
	case engine.EventAgentStart:
		rs.startAgent(ev)
	case engine.EventAgentEnd:
		rs.endAgent(ev)
	case engine.EventRunEnd:
		t.mu.Lock()
		delete(t.runs, ev.RunID)
		t.mu.Unlock()
		rs.end(ev)
	}
}

func (t *Tracer) lookup(runID string) *runSpans {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.runs[runID]
}

// setError marks span as failed: the status with the sentence, and
// error.type with the low-cardinality kind (docs/observability.md lists
// the values).
func setError(span oteltrace.Span, kind, msg string) {
	if kind == "" {
		kind = "_OTHER"
	}
	span.SetAttributes(semconv.ErrorTypeKey.String(kind))
	span.SetStatus(codes.Error, msg)
}
