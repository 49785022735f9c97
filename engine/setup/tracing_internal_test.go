package setup

import "testing"

func TestWithoutAnEndpointNoTracerIsInstalled(t *testing.T) {
	for _, environ := range []map[string]string{
		nil,
		{"OTEL_EXPORTER_OTLP_HEADERS": "x=y"}, // configuration, but no endpoint
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_SDK_DISABLED": "true"},
	} {
		in := Inputs{Providers: Options{Getenv: func(k string) string { return environ[k] }}}
		opts, err := in.tracing()
		if err != nil {
			t.Fatal(err)
		}
		var notices []string
		tracer, stop := startTracing(opts, Build{Notify: func(s string) { notices = append(notices, s) }})
		stop()
		if tracer != nil || len(notices) > 0 {
			t.Errorf("with the environment %v: tracer %v, notices %q", environ, tracer, notices)
		}
	}
}
