package trace

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	oteltrace "go.opentelemetry.io/otel/trace"
)

// Options says whether and where Start exports traces.
type Options struct {
	// Endpoint is an OTLP/HTTP endpoint (the CLI's --otlp-endpoint): a
	// collector's base URL such as http://localhost:4318, to which
	// /v1/traces is added, or a URL with its own path, used as it is. It
	// wins over OTEL_EXPORTER_OTLP_ENDPOINT and
	// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT. "" leaves the endpoint to them.
	Endpoint string
	// Getenv reads the OTEL_* variables that decide whether and how
	// traces are exported, and TRACEPARENT and TRACESTATE; nil means
	// os.Getenv. The SDK reads the others from the process environment, as
	// every OpenTelemetry SDK does: the exporter's (headers, timeout,
	// certificates, compression), the resource's (OTEL_SERVICE_NAME,
	// OTEL_RESOURCE_ATTRIBUTES), the sampler's and the batch processor's.
	Getenv func(string) string
	// Version is wfrun's version: the resource's service.version and the
	// instrumentation scope's version. "" leaves them out.
	Version string
	// OnError, if set, is told when an export fails (the collector is
	// down, say); the same error is not told again until an export has
	// succeeded. nil leaves failed exports to OpenTelemetry's global error
	// handler, which logs them.
	OnError func(error)
}

func (o Options) getenv(name string) string {
	if o.Getenv == nil {
		return os.Getenv(name)
	}
	return o.Getenv(name)
}

// The variables of the OpenTelemetry specification that Enabled and Start
// read themselves.
const (
	envEndpoint        = "OTEL_EXPORTER_OTLP_ENDPOINT"
	envTracesEndpoint  = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
	envProtocol        = "OTEL_EXPORTER_OTLP_PROTOCOL"
	envTracesProtocol  = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"
	envTracesExporter  = "OTEL_TRACES_EXPORTER"
	envSDKDisabled     = "OTEL_SDK_DISABLED"
	protocolHTTPProto  = "http/protobuf"
	protocolHTTPJSON   = "http/json" // the exporter honours it too
	defaultServiceName = "wfrun"
)

// Enabled reports whether traces should be exported: Endpoint is set, or
// the environment names an OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) and neither OTEL_SDK_DISABLED=true
// nor OTEL_TRACES_EXPORTER=none turns that off. Without it, a program
// installs no Tracer at all, so that runs cost exactly what they cost
// without tracing.
func Enabled(o Options) bool {
	if strings.TrimSpace(o.Endpoint) != "" {
		return true
	}
	if strings.EqualFold(strings.TrimSpace(o.getenv(envSDKDisabled)), "true") ||
		strings.EqualFold(strings.TrimSpace(o.getenv(envTracesExporter)), "none") {
		return false
	}
	return strings.TrimSpace(o.getenv(envEndpoint)) != "" || strings.TrimSpace(o.getenv(envTracesEndpoint)) != ""
}

// Check reports the configuration Start would refuse — a malformed
// Endpoint, an OTLP protocol other than http/protobuf or http/json, an
// exporter other than otlp — with a sentence that says what to set
// instead, without building anything. A command line checks it before it
// runs anything.
func Check(o Options) error {
	_, err := exporterOptions(o)
	return err
}

// Start returns a Tracer whose spans are exported over OTLP/HTTP in
// batches (protobuf bodies, or JSON when OTEL_EXPORTER_OTLP_PROTOCOL says
// http/json), to Endpoint or where the OTEL_EXPORTER_OTLP_* variables say. The resource is service.name "wfrun" (OTEL_SERVICE_NAME
// and OTEL_RESOURCE_ATTRIBUTES override it) with the SDK's own attributes;
// OTEL_TRACES_SAMPLER and OTEL_BSP_* apply as usual. When the process was
// started with TRACEPARENT (by a traced parent, or by a wfrun command
// provider), a run whose context carries no span becomes a child of that
// span. Start sends nothing yet and fails only where Check does (or on
// unreadable resource variables). Call Shutdown when done, after closing
// the engine, to send what is buffered.
func Start(ctx context.Context, o Options) (*Tracer, error) {
	opts, err := exporterOptions(o)
	if err != nil {
		return nil, err
	}
	exp, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("traces: cannot set up the OTLP exporter: %w", err)
	}
	attrs := []resource.Option{resource.WithAttributes(semconv.ServiceName(defaultServiceName))}
	if o.Version != "" {
		attrs = append(attrs, resource.WithAttributes(semconv.ServiceVersion(o.Version)))
	}
	// Later options win: the environment's service name over ours.
	res, err := resource.New(ctx, append(attrs, resource.WithTelemetrySDK(), resource.WithFromEnv())...)
	if err != nil {
		_ = exp.Shutdown(ctx)
		return nil, fmt.Errorf("traces: OTEL_RESOURCE_ATTRIBUTES or OTEL_SERVICE_NAME cannot be read: %w; write them as key=value,key=value", err)
	}
	var spanExp sdktrace.SpanExporter = exp
	if o.OnError != nil {
		spanExp = &reportingExporter{SpanExporter: exp, report: o.OnError}
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(spanExp), sdktrace.WithResource(res))
	t := newTracer(tp, o.Version)
	t.provider = tp
	t.parent = parentFromEnv(o)
	return t, nil
}

// exporterOptions checks the configuration Start can honour and turns
// Endpoint into the exporter's option.
func exporterOptions(o Options) ([]otlptracehttp.Option, error) {
	name := envTracesProtocol // the traces-specific variable wins over the general one
	proto := strings.TrimSpace(o.getenv(name))
	if proto == "" {
		name, proto = envProtocol, strings.TrimSpace(o.getenv(envProtocol))
	}
	if proto != "" && proto != protocolHTTPProto && proto != protocolHTTPJSON {
		return nil, fmt.Errorf("traces: %s is %q, but wfrun exports over OTLP/HTTP only; set it to %s (an OpenTelemetry collector takes it on port 4318) or unset it",
			name, proto, protocolHTTPProto)
	}
	if v := strings.TrimSpace(o.getenv(envTracesExporter)); v != "" && v != "otlp" && v != "none" {
		return nil, fmt.Errorf("traces: %s is %q, but wfrun exports traces over OTLP only; set it to otlp or unset it", envTracesExporter, v)
	}
	ep := strings.TrimSpace(o.Endpoint)
	if ep == "" {
		return nil, nil
	}
	u, err := url.Parse(ep)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("traces: the OTLP endpoint %q is not an http:// or https:// URL; write one like http://localhost:4318", ep)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/traces"
	}
	return []otlptracehttp.Option{otlptracehttp.WithEndpointURL(u.String())}, nil
}

// parentFromEnv is the span context of TRACEPARENT and TRACESTATE, the
// environment-variable carriers of OpenTelemetry's specification (zero
// when unset or malformed).
func parentFromEnv(o Options) oteltrace.SpanContext {
	carrier := propagation.MapCarrier{
		"traceparent": strings.TrimSpace(o.getenv("TRACEPARENT")),
		"tracestate":  strings.TrimSpace(o.getenv("TRACESTATE")),
	}
	return oteltrace.SpanContextFromContext(propagation.TraceContext{}.Extract(context.Background(), carrier))
}

// reportingExporter tells failed exports to report instead of
// OpenTelemetry's global handler, once per distinct error until an export
// succeeds: a collector that stays down makes one notice, not one a batch.
type reportingExporter struct {
	sdktrace.SpanExporter
	report func(error)

	mu   sync.Mutex
	last string // the error last reported; "" after a success
}

func (r *reportingExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	err := r.SpanExporter.ExportSpans(ctx, spans)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil {
		r.last = ""
		return nil
	}
	if msg := err.Error(); msg != r.last {
		r.last = msg
		r.report(err)
	}
	return nil // reported: the batch processor would hand it to the global handler as well
}
