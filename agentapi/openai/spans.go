package openai

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"

	goopenai "github.com/sashabaranov/go-openai"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// This file is the provider's OpenTelemetry spans, following the GenAI
// semantic conventions (docs/observability.md). The provider keeps no
// tracer of its own: it starts its spans with the tracer provider of the
// span it finds in Run's context (the agent's span, when the engine traces
// runs), so without one every call below is a no-op, and the HTTP requests
// carry that span's trace context in a traceparent header.

// scopeName is the instrumentation scope of the provider's spans.
const scopeName = "github.com/wfrun/wfrun/agentapi/openai"

// providerName is gen_ai.provider.name: the endpoint speaks OpenAI's API,
// whoever serves it (gen_ai.request.model and server.address tell them apart).
const providerName = "openai"

func tracer(ctx context.Context) trace.Tracer {
	return trace.SpanFromContext(ctx).TracerProvider().Tracer(scopeName, trace.WithSchemaURL(semconv.SchemaURL))
}

// injectTraceContext puts the trace context of the request's span (the chat
// turn's) into its traceparent and tracestate headers.
func injectTraceContext(req *http.Request) {
	propagation.TraceContext{}.Inject(req.Context(), propagation.HeaderCarrier(req.Header))
}

// chat sends one turn as a chat span: the whole logical call, with its
// retries, from the first attempt to the answer or the give-up. The agent's
// span learns which model answered.
func (c *conversation) chat(ctx context.Context, creq goopenai.ChatCompletionRequest) (goopenai.ChatCompletionResponse, error) {
	agent := trace.SpanFromContext(ctx)
	attrs := []attribute.KeyValue{
		semconv.GenAIOperationNameChat,
		semconv.GenAIProviderNameKey.String(providerName),
		semconv.GenAIRequestModel(creq.Model),
	}
	attrs = append(attrs, c.p.server...)
	if c.sch != nil {
		attrs = append(attrs, semconv.GenAIOutputTypeJSON)
	}
	ctx, span := tracer(ctx).Start(ctx, "chat "+creq.Model, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	defer span.End()
	resp, err := c.p.complete(ctx, creq)
	if !span.IsRecording() {
		return resp, err
	}
	if err != nil {
		kind := "cancelled"
		var ce *callError
		switch {
		case errors.As(err, &ce) && ce.fatal != nil:
			kind = string(ce.fatal.Code)
		case errors.As(err, &ce):
			kind = string(ce.kind)
		case errors.Is(err, context.DeadlineExceeded):
			kind = "timeout"
		}
		span.SetAttributes(semconv.ErrorTypeKey.String(kind))
		span.SetStatus(codes.Error, err.Error())
		return resp, err
	}
	span.SetAttributes(
		semconv.GenAIResponseID(resp.ID),
		semconv.GenAIResponseModel(resp.Model),
		semconv.GenAIUsageInputTokens(resp.Usage.PromptTokens),
		semconv.GenAIUsageOutputTokens(resp.Usage.CompletionTokens),
	)
	if d := resp.Usage.PromptTokensDetails; d != nil && d.CachedTokens > 0 {
		span.SetAttributes(semconv.GenAIUsageCacheReadInputTokens(d.CachedTokens))
	}
	if d := resp.Usage.CompletionTokensDetails; d != nil && d.ReasoningTokens > 0 {
		span.SetAttributes(semconv.GenAIUsageReasoningOutputTokens(d.ReasoningTokens))
	}
	reasons := make([]string, 0, len(resp.Choices))
	for _, ch := range resp.Choices {
		reasons = append(reasons, string(ch.FinishReason))
	}
	span.SetAttributes(semconv.GenAIResponseFinishReasons(reasons...))
	if resp.Model != "" {
		agent.SetAttributes(semconv.GenAIResponseModel(resp.Model))
	}
	return resp, nil
}

// toolSpan starts the span of one tool call, a child of the agent's span.
func toolSpan(ctx context.Context, call goopenai.ToolCall) (context.Context, trace.Span) {
	name := call.Function.Name
	return tracer(ctx).Start(ctx, "execute_tool "+name, trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(
		semconv.GenAIOperationNameExecuteTool,
		semconv.GenAIToolName(name),
		semconv.GenAIToolCallID(call.ID),
		semconv.GenAIToolType("function"),
	))
}

// endToolSpan ends a tool call's span; a failed call is an error of type
// tool_error (the tool failed or was refused) or cancelled.
func endToolSpan(ctx context.Context, span trace.Span, err error) {
	if err != nil {
		kind := "tool_error"
		if ctx.Err() != nil {
			kind = "cancelled"
		}
		span.SetAttributes(semconv.ErrorTypeKey.String(kind))
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// serverAttributes are server.address and server.port of the endpoint.
func serverAttributes(baseURL string) []attribute.KeyValue {
	u, err := url.Parse(baseURL)
	if err != nil || u.Hostname() == "" {
		return nil
	}
	attrs := []attribute.KeyValue{semconv.ServerAddress(u.Hostname())}
	port := u.Port()
	if port == "" {
		switch u.Scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	if n, err := strconv.Atoi(port); err == nil {
		attrs = append(attrs, semconv.ServerPort(n))
	}
	return attrs
}
