package tool_test

import (
	"context"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/tool"
)

func envelope(t *testing.T, res tool.Result) tool.Envelope {
	t.Helper()
	env, ok := res.Structured.(tool.Envelope)
	if !ok {
		t.Fatalf("structured content is %T, not an envelope: %s", res.Structured, res.Text)
	}
	return env
}

func TestAgent_ATextAnswerIsTheResultText(t *testing.T) {
	s, evs := newSet(t, `{"rules":[{"match":"^Summarise","reply":"It is short."}]}`, tool.Options{})
	res := call(t, s, tool.Agent, map[string]any{"prompt": "Summarise the README"})
	env := envelope(t, res)
	if res.IsError || res.Text != "It is short." || env.Status != agentapi.StatusCompleted || env.RunID == "" {
		t.Fatalf("%+v", res)
	}
	var starts int
	for _, ev := range evs.of(res.RunID) {
		if ev.Type == engine.EventAgentStart {
			starts++
		}
	}
	if starts != 1 {
		t.Fatalf("%d agents started, want 1", starts)
	}
}

func TestAgent_ASchemaAnswerIsTheValidatedObject(t *testing.T) {
	s, _ := newSet(t, `{"rules":[{"match":"^Rate","reply":{"score":4,"why":"clear"}}]}`, tool.Options{})
	res := call(t, s, tool.Agent, map[string]any{"prompt": "Rate the docs", "schema": map[string]any{
		"type": "object", "properties": map[string]any{"score": map[string]string{"type": "integer"}, "why": map[string]string{"type": "string"}},
		"required": []string{"score"},
	}})
	if res.IsError || res.Text != "{\n  \"score\": 4,\n  \"why\": \"clear\"\n}" || string(envelope(t, res).Result) != `{"score":4,"why":"clear"}` {
		t.Fatalf("%+v", res)
	}
}

func TestAgent_AFailedSubAgentIsAnErrorNamingTheFailureKind(t *testing.T) {
	s, _ := newSet(t, `{"rules":[{"match":"^Fix","fail":"the tests would not pass"},{"match":"^Wait","timeout":true}]}`, tool.Options{})
	res := call(t, s, tool.Agent, map[string]any{"prompt": "Fix the build"})
	if env := envelope(t, res); !res.IsError || env.Failure != agentapi.FailureTaskFailed ||
		!strings.Contains(res.Text, "task_failed") || !strings.Contains(res.Text, "the tests would not pass") {
		t.Fatalf("%+v", res)
	}
	res = call(t, s, tool.Agent, map[string]any{"prompt": "Wait for it"})
	if env := envelope(t, res); !res.IsError || env.Status != agentapi.StatusTimedOut || !strings.Contains(res.Text, "timeout") {
		t.Fatalf("%+v", res)
	}
}

// capless can honour no option.
type capless struct{}

func (capless) Name() string                        { return "capless" }
func (capless) Capabilities() agentapi.Capabilities { return agentapi.Capabilities{} }
func (capless) Run(context.Context, agentapi.Request) (agentapi.Result, error) {
	return agentapi.Result{Status: agentapi.StatusCompleted, Text: "ok"}, nil
}

func TestAgent_AnOptionTheProviderCannotHonourIsAnError(t *testing.T) {
	eng, _ := newEngine(t, engine.Config{Providers: []agentapi.Provider{capless{}}, DefaultProvider: "capless"})
	s := tool.New(eng, tool.Options{})
	res := call(t, s, tool.Agent, map[string]any{"prompt": "Review this", "agentType": "reviewer"})
	if !res.IsError || !strings.Contains(res.Text, "UNSUPPORTED_OPTION") || !strings.Contains(res.Text, "agentType") ||
		strings.Contains(res.Text, "line") {
		t.Fatalf("%+v", res)
	}
	if res := call(t, s, tool.Agent, map[string]any{"prompt": "Plain"}); res.IsError || res.Text != "ok" {
		t.Fatalf("%+v", res)
	}
}

func TestAgent_BadInputIsRefusedBeforeAnyRun(t *testing.T) {
	s, _ := newSet(t, "", tool.Options{})
	for _, tc := range []struct {
		input any
		want  string
	}{
		{map[string]any{}, "needs a prompt"},
		{map[string]any{"prompt": "  "}, "needs a prompt"},
		{map[string]any{"prompt": "x", "schema": []int{1}}, "object root"},
		{map[string]any{"prompt": "x", "temperature": 0.2}, `no field "temperature"`},
		{map[string]any{"prompt": "x", "tools": "Read"}, "tools must be an array of strings"},
		{map[string]any{"prompt": "x", "tools": []any{"Read", 1}}, "tools must be an array of strings, not a JSON number"},
	} {
		res := call(t, s, tool.Agent, tc.input)
		if !res.IsError || !strings.Contains(res.Text, tc.want) {
			t.Errorf("%v: %+v", tc.input, res)
		}
	}
	if runs := s.Engine().Runs(s.Owner()); len(runs) != 0 {
		t.Fatalf("bad input started runs: %+v", runs)
	}
}
