// Package otlptest is an OTLP/HTTP trace receiver on loopback for tests: a
// real HTTP server that takes what an exporter sends to /v1/traces and
// decodes it with the official OTLP protobuf types, so a test sees the
// spans exactly as a collector would. Test code only.
package otlptest

import (
	"compress/gzip"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Span is one received span with the resource and scope it came under.
type Span struct {
	*tracepb.Span
	Resource map[string]string // the resource's string attributes
	Scope    string            // the instrumentation scope's name
}

// Attr returns the span's attribute key as a string ("" when absent), an
// integer attribute in decimal and a boolean as true or false.
func (s Span) Attr(key string) string { return attrString(s.Attributes, key) }

// TraceID and SpanID are the span's ids in hex; ParentID is "" for a root.
func (s Span) TraceID() string  { return hex.EncodeToString(s.Span.TraceId) }
func (s Span) SpanID() string   { return hex.EncodeToString(s.Span.SpanId) }
func (s Span) ParentID() string { return hex.EncodeToString(s.ParentSpanId) }

// Collector receives traces. Start one with New; it closes when the test ends.
type Collector struct {
	*httptest.Server
	t testing.TB

	mu      sync.Mutex
	spans   []Span
	arrived chan struct{} // signalled (non-blocking) after each request
}

// New starts a collector on a free loopback port.
func New(t testing.TB) *Collector {
	t.Helper()
	c := &Collector{t: t, arrived: make(chan struct{}, 1)}
	c.Server = httptest.NewServer(http.HandlerFunc(c.serve))
	t.Cleanup(c.Close)
	return c
}

// Endpoint is the collector's base URL, what OTEL_EXPORTER_OTLP_ENDPOINT
// and --otlp-endpoint take.
func (c *Collector) Endpoint() string { return c.URL }

func (c *Collector) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" {
		c.t.Errorf("otlptest: %s %s; an OTLP/HTTP trace exporter posts to /v1/traces", r.Method, r.URL.Path)
		http.Error(w, "not an OTLP trace export", http.StatusNotFound)
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		c.t.Errorf("otlptest: Content-Type %q, want application/x-protobuf", ct)
	}
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		defer gz.Close()
		body = gz
	}
	data, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req collectortrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(data, &req); err != nil {
		c.t.Errorf("otlptest: the body is not an ExportTraceServiceRequest: %v", err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	for _, rs := range req.ResourceSpans {
		res := map[string]string{}
		if rs.Resource != nil {
			for _, kv := range rs.Resource.Attributes {
				res[kv.Key] = valueString(kv.Value)
			}
		}
		for _, ss := range rs.ScopeSpans {
			scope := ""
			if ss.Scope != nil {
				scope = ss.Scope.Name
			}
			for _, sp := range ss.Spans {
				c.spans = append(c.spans, Span{Span: sp, Resource: res, Scope: scope})
			}
		}
	}
	c.mu.Unlock()
	select {
	case c.arrived <- struct{}{}:
	default:
	}
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// Spans returns what arrived so far.
func (c *Collector) Spans() []Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Span(nil), c.spans...)
}

// WaitFor waits until at least n spans have arrived or timeout passes, and
// returns what arrived.
func (c *Collector) WaitFor(n int, timeout time.Duration) []Span {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		if s := c.Spans(); len(s) >= n {
			return s
		}
		select {
		case <-c.arrived:
		case <-deadline.C:
			return c.Spans()
		}
	}
}

func attrString(kvs []*commonpb.KeyValue, key string) string {
	for _, kv := range kvs {
		if kv.Key == key {
			return valueString(kv.Value)
		}
	}
	return ""
}

func valueString(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return strconv.FormatInt(x.IntValue, 10)
	case *commonpb.AnyValue_BoolValue:
		if x.BoolValue {
			return "true"
		}
		return "false"
	}
	return ""
}
