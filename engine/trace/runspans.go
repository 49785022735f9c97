package trace

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine"
)

// runSpans is the open spans of one run: its own, one per phase title, and
// one per running agent. The engine delivers a run's events one at a time,
// but StartChild comes from the children's goroutines, so mu guards it all.
type runSpans struct {
	tracer   oteltrace.Tracer
	id       string
	provider string
	ctx      context.Context // carries span
	span     oteltrace.Span

	mu      sync.Mutex
	current string // the title of the last phase() call
	phases  map[string]*phaseSpan
	order   []string                  // phase titles in order of their first appearance
	agents  map[string]oteltrace.Span // running agents by agent id
}

// phaseSpan is one phase title's span. It stays open until the run ends,
// because an agent may name a phase long after the script moved on (the
// phase option, a pipeline's later stages); it is then ended at the time the
// phase really ended: when the script left it or its last agent ended,
// whichever came later.
type phaseSpan struct {
	ctx     context.Context
	span    oteltrace.Span
	start   time.Time
	left    time.Time // when the script last left it; zero while it is current
	lastEnd time.Time // when its last agent ended
}

func newRunSpans(tracer oteltrace.Tracer, run engine.ObservedRun, ctx context.Context, span oteltrace.Span) *runSpans {
	return &runSpans{
		tracer: tracer, id: run.RunID, provider: run.Provider, ctx: ctx, span: span,
		phases: make(map[string]*phaseSpan), agents: make(map[string]oteltrace.Span),
	}
}

// enterPhase follows a phase() call: the phase before it is left, and the
// named one becomes current (its span starts if this is its first mention).
func (rs *runSpans) enterPhase(ev engine.Event) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if ev.Title == rs.current {
		return
	}
	if prev := rs.phases[rs.current]; prev != nil {
		prev.left = ev.Time
	}
	rs.current = ev.Title
	rs.phase(ev.Title, ev.Time).left = time.Time{}
}

// phase returns the span of the phase titled title, starting it at t when
// it has none yet. rs.mu held.
func (rs *runSpans) phase(title string, t time.Time) *phaseSpan {
	if ps := rs.phases[title]; ps != nil {
		return ps
	}
	ctx, span := rs.tracer.Start(rs.ctx, "phase "+title, oteltrace.WithSpanKind(oteltrace.SpanKindInternal),
		oteltrace.WithTimestamp(t),
		oteltrace.WithAttributes(AttrRunID.String(rs.id), AttrPhase.String(title)))
	ps := &phaseSpan{ctx: ctx, span: span, start: t, left: t}
	rs.phases[title] = ps
	rs.order = append(rs.order, title)
	return ps
}

// startAgent starts an agent's span at its agent.start, a child of its
// phase's span, or of the run's when it has no phase.
func (rs *runSpans) startAgent(ev engine.Event) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	parent := rs.ctx
	if ev.Phase != "" {
		parent = rs.phase(ev.Phase, ev.Time).ctx
	}
	attrs := []attribute.KeyValue{
		semconv.GenAIOperationNameInvokeAgent,
		semconv.GenAIProviderNameKey.String(rs.provider),
		semconv.GenAIAgentName(ev.Label),
		AttrRunID.String(rs.id),
		AttrAgentID.String(ev.AgentID),
		AttrSeq.Int(ev.Seq),
		AttrLabel.String(ev.Label),
	}
	if ev.Model != "" {
		attrs = append(attrs, semconv.GenAIRequestModel(ev.Model))
	}
	if ev.Phase != "" {
		attrs = append(attrs, AttrPhase.String(ev.Phase))
	}
	_, span := rs.tracer.Start(parent, agentSpanName(ev.Label), oteltrace.WithSpanKind(oteltrace.SpanKindInternal),
		oteltrace.WithTimestamp(ev.Time), oteltrace.WithAttributes(attrs...))
	rs.agents[ev.AgentID] = span
}

// agentSpan returns the running agent's span, completed with what only
// the request says, or nil when the agent has none (it has ended already).
func (rs *runSpans) agentSpan(req agentapi.Request) oteltrace.Span {
	rs.mu.Lock()
	span := rs.agents[req.AgentID]
	rs.mu.Unlock()
	if span == nil || !span.IsRecording() {
		return span
	}
	if req.Persona != "" {
		span.SetName(agentSpanName(req.Persona))
		span.SetAttributes(semconv.GenAIAgentName(req.Persona), AttrPersona.String(req.Persona))
	}
	if len(req.Schema) > 0 {
		span.SetAttributes(semconv.GenAIOutputTypeJSON)
	} else {
		span.SetAttributes(semconv.GenAIOutputTypeText)
	}
	return span
}

func agentSpanName(name string) string {
	if name == "" {
		return OperationAgent
	}
	return OperationAgent + " " + name
}

// endAgent ends an agent's span at its agent.end with its usage and
// outcome; a child that did not complete is an error whose error.type is
// its failure kind.
func (rs *runSpans) endAgent(ev engine.Event) {
	rs.mu.Lock()
	span := rs.agents[ev.AgentID]
	delete(rs.agents, ev.AgentID)
	if ps := rs.phases[ev.Phase]; ps != nil && ev.Time.After(ps.lastEnd) {
		ps.lastEnd = ev.Time
	}
	rs.mu.Unlock()
	if span == nil {
		return
	}
	attrs := []attribute.KeyValue{AttrOutcome.String(string(ev.Outcome))}
	if u := ev.Usage; u != nil {
		attrs = append(attrs,
			semconv.GenAIUsageInputTokens(int(u.InputTokens)),
			semconv.GenAIUsageOutputTokens(int(u.OutputTokens)),
			AttrCostUSD.Float64(u.CostUSD))
		if u.CachedTokens > 0 {
			attrs = append(attrs, semconv.GenAIUsageCacheReadInputTokens(int(u.CachedTokens)))
		}
	}
	if ev.Note != "" {
		attrs = append(attrs, AttrNote.String(ev.Note))
	}
	if wt := ev.Worktree; wt != nil {
		attrs = append(attrs, AttrWorktreePath.String(wt.Path), AttrWorktreeBranch.String(wt.Branch))
	}
	span.SetAttributes(attrs...)
	if ev.Outcome != agentapi.StatusCompleted {
		kind := string(ev.Failure)
		if kind == "" {
			kind = string(ev.Outcome)
		}
		setError(span, kind, ev.Error)
	}
	span.End(oteltrace.WithTimestamp(ev.Time))
}

// end ends what is left of the run at its run.end: the phases, at the
// times they really ended, any agent still open (the event stream's
// invariant says there is none), and the run's span with its result.
func (rs *runSpans) end(ev engine.Event) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for id, span := range rs.agents {
		setError(span, "not_ended", "the run ended before this agent's agent.end")
		span.End(oteltrace.WithTimestamp(ev.Time))
		delete(rs.agents, id)
	}
	for _, title := range rs.order {
		ps := rs.phases[title]
		end := ps.left
		if end.IsZero() { // still current when the run ended
			end = ev.Time
		}
		if ps.lastEnd.After(end) {
			end = ps.lastEnd
		}
		ps.span.End(oteltrace.WithTimestamp(end))
	}
	if res, ok := engine.EndResult(ev); ok {
		rs.span.SetAttributes(
			AttrStopReason.String(string(res.StopReason)),
			AttrAgentsSpawned.Int(res.AgentsSpawned),
			AttrAgentsCompleted.Int(res.Agents.Completed),
			AttrAgentsFailed.Int(res.Agents.Failed),
			AttrAgentsTimedOut.Int(res.Agents.TimedOut),
			AttrAgentsCancelled.Int(res.Agents.Cancelled),
			AttrInputTokens.Int64(res.Usage.InputTokens),
			AttrOutputTokens.Int64(res.Usage.OutputTokens),
			AttrCostUSD.Float64(res.Usage.CostUSD),
		)
		if res.StopReason != engine.StopCompleted {
			rs.span.SetAttributes(AttrErrorCode.String(string(res.ErrorCode)))
			setError(rs.span, string(res.ErrorCode), res.Error)
		}
	}
	rs.span.End(oteltrace.WithTimestamp(ev.Time))
}
