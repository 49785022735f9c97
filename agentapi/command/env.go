package command

import (
	"context"
	"maps"
	"slices"
	"strings"

	"go.opentelemetry.io/contrib/propagators/envcar"
	"go.opentelemetry.io/otel/propagation"

	"github.com/wfrun/wfrun/agentapi/internal/proc"
)

// InheritedEnv returns the names of the variables every child inherits from
// wfrun's environment when they are set, in addition to Spec.PassEnv.
func InheritedEnv() []string { return proc.InheritedEnv() }

// environ builds a child's environment: the inherited variables, then
// PassEnv, then Env, later ones winning, then the trace context of ctx;
// each name appears once.
func environ(ctx context.Context, s *Spec) []string {
	return withTraceContext(ctx, proc.Environ(s.PassEnv, s.Env))
}

// withTraceContext sets TRACEPARENT (and TRACESTATE) in env to the trace
// context of ctx's span — the agent's, when the run is traced — as
// OpenTelemetry's environment-variable carriers specify, so that an agent
// CLI that traces itself joins the run's trace under its agent. Without a
// span env is returned as it is; with one, these variables replace any of
// the same name from PassEnv or Env, which cannot know the right parent.
func withTraceContext(ctx context.Context, env []string) []string {
	set := map[string]string{}
	propagation.TraceContext{}.Inject(ctx, &envcar.Carrier{SetEnvFunc: func(k, v string) { set[k] = v }})
	if len(set) == 0 {
		return env
	}
	out := env[:0:0]
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); set[k] == "" {
			out = append(out, kv)
		}
	}
	for _, k := range sortedKeys(set) {
		out = append(out, k+"="+set[k])
	}
	return out
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }

// lookPath finds the command the way a shell would, but with the child's
// PATH (Spec.Env may set it) and relative to the child's directory.
func lookPath(name, dir string, env []string) (string, error) { return proc.LookPath(name, dir, env) }
