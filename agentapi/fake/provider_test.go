package fake

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/internal/testkit/loadbound"
)

const verdictSchema = `{"type":"object","properties":{"real":{"type":"boolean"},"why":{"type":"string"}},"required":["real"]}`

func textRequest(prompt string) agentapi.Request {
	return agentapi.Request{RunID: "wf_test", AgentID: "ag_1", Seq: 1, Parent: "test", Prompt: prompt}
}

func schemaRequest(prompt, schema string) agentapi.Request {
	r := textRequest(prompt)
	r.Schema = json.RawMessage(schema)
	return r
}

func mustRules(t testing.TB, file string) *Rules {
	t.Helper()
	rs, err := Parse([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func TestProviderDeclaresItselfFakeWithEveryCapability(t *testing.T) {
	var p agentapi.Provider = New(Options{})
	if p.Name() != "fake" || p.Capabilities() != agentapi.All() {
		t.Errorf("Name %q, Capabilities %+v", p.Name(), p.Capabilities())
	}
}

func TestRunOutcomes(t *testing.T) {
	rules := mustRules(t, `{"rules": [
		{"match": "^say hello", "reply": "hello there"},
		{"match": "^say json", "reply": {"b": 1, "a": [true, null]}},
		{"match": "^verdict object", "reply": {"real": true, "why": "because"}},
		{"match": "^verdict string", "reply": "{\"real\": false}"},
		{"match": "^verdict prose", "reply": "it is real"},
		{"match": "^verdict wrong", "reply": {"real": "yes"}},
		{"match": "^break", "fail": "context window exceeded"},
		{"match": "^hang", "timeout": true},
		{"match": "^priced", "reply": "ok", "usage": {"inputTokens": 100, "outputTokens": 7, "costUSD": 0.25}},
		{"match": "^only usage", "usage": {"inputTokens": 1, "outputTokens": 1}},
		{"match": "first", "reply": "first rule"},
		{"match": "first|second", "reply": "second rule"}
	]}`)
	p := New(Options{Rules: rules})
	cases := []struct {
		name string
		req  agentapi.Request
		want agentapi.Result
	}{
		{"text call without a rule echoes the prompt", textRequest("echo me!"),
			agentapi.Result{Status: agentapi.StatusCompleted, Text: "echo me!", Usage: agentapi.Usage{InputTokens: 2, OutputTokens: 2}}},
		{"schema call without a rule answers the minimal value", schemaRequest("judge it", verdictSchema),
			agentapi.Result{Status: agentapi.StatusCompleted, Output: json.RawMessage(`{"real":false}`), Usage: agentapi.Usage{InputTokens: 2, OutputTokens: 4}}},
		{"a string reply is a text call's text", textRequest("say hello"),
			agentapi.Result{Status: agentapi.StatusCompleted, Text: "hello there", Usage: agentapi.Usage{InputTokens: 3, OutputTokens: 3}}},
		{"a JSON reply is a text call's compact JSON text", textRequest("say json"),
			agentapi.Result{Status: agentapi.StatusCompleted, Text: `{"b":1,"a":[true,null]}`, Usage: agentapi.Usage{InputTokens: 2, OutputTokens: 6}}},
		{"a JSON reply is a schema call's output", schemaRequest("verdict object", verdictSchema),
			agentapi.Result{Status: agentapi.StatusCompleted, Output: json.RawMessage(`{"real":true,"why":"because"}`), Usage: agentapi.Usage{InputTokens: 4, OutputTokens: 8}}},
		{"a string reply holding JSON is parsed for a schema call", schemaRequest("verdict string", verdictSchema),
			agentapi.Result{Status: agentapi.StatusCompleted, Output: json.RawMessage(`{"real":false}`), Usage: agentapi.Usage{InputTokens: 4, OutputTokens: 4}}},
		{"a string reply that is not JSON fails a schema call", schemaRequest("verdict prose", verdictSchema),
			agentapi.Result{Status: agentapi.StatusFailed, Failure: agentapi.FailureInvalidOutput,
				Error: "fake rule 5 replies with a string that is not JSON text, so it cannot answer a schema call: write the reply as a JSON value",
				Usage: agentapi.Usage{InputTokens: 4, OutputTokens: 3}}},
		{"a reply that does not satisfy the schema fails with invalid_output", schemaRequest("verdict wrong", verdictSchema),
			agentapi.Result{Status: agentapi.StatusFailed, Failure: agentapi.FailureInvalidOutput,
				Error: "fake rule 6: the value does not match the schema: /real: got string, want boolean",
				Usage: agentapi.Usage{InputTokens: 4, OutputTokens: 4}}},
		{"fail makes the child fail with the message", textRequest("break it"),
			agentapi.Result{Status: agentapi.StatusFailed, Failure: agentapi.FailureTaskFailed, Error: "context window exceeded", Usage: agentapi.Usage{InputTokens: 2}}},
		{"timeout ends the child timed out", schemaRequest("hang on", verdictSchema),
			agentapi.Result{Status: agentapi.StatusTimedOut, Failure: agentapi.FailureTimeout, Error: "the child timed out (fake rule 8)", Usage: agentapi.Usage{InputTokens: 2}}},
		{"a rule's usage replaces the formula", textRequest("priced"),
			agentapi.Result{Status: agentapi.StatusCompleted, Text: "ok", Usage: agentapi.Usage{InputTokens: 100, OutputTokens: 7, CostUSD: 0.25}}},
		{"a rule with only usage answers as without a rule", schemaRequest("only usage", verdictSchema),
			agentapi.Result{Status: agentapi.StatusCompleted, Output: json.RawMessage(`{"real":false}`), Usage: agentapi.Usage{InputTokens: 1, OutputTokens: 1}}},
		{"the first matching rule wins", textRequest("first or second"),
			agentapi.Result{Status: agentapi.StatusCompleted, Text: "first rule", Usage: agentapi.Usage{InputTokens: 4, OutputTokens: 3}}},
		{"match is searched anywhere in the prompt", textRequest("the second one"),
			agentapi.Result{Status: agentapi.StatusCompleted, Text: "second rule", Usage: agentapi.Usage{InputTokens: 4, OutputTokens: 3}}},
		{"an empty prompt costs no tokens", textRequest(""),
			agentapi.Result{Status: agentapi.StatusCompleted}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := p.Run(t.Context(), c.req)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if !sameResult(got, c.want) {
				t.Errorf("Run(%q)\n got: %+v (output %s)\nwant: %+v (output %s)", c.req.Prompt, got, got.Output, c.want, c.want.Output)
			}
		})
	}
}

func TestUsageFormulaRoundsUp(t *testing.T) {
	p := New(Options{})
	for n, want := range map[int]int64{0: 0, 1: 1, 3: 1, 4: 1, 5: 2, 8: 2, 9: 3, 401: 101} {
		res, _ := p.Run(t.Context(), textRequest(strings.Repeat("x", n)))
		if res.Usage.InputTokens != want || res.Usage.OutputTokens != want || res.Usage.CostUSD != 0 {
			t.Errorf("prompt of %d bytes: usage %+v, want %d tokens each way", n, res.Usage, want)
		}
	}
}

func TestRunWithTheAuditPipelineRules(t *testing.T) {
	rules, err := Load("testdata/audit-pipeline.rules.json")
	if err != nil {
		t.Fatal(err)
	}
	p := New(Options{Rules: rules})
	findings := `{"type":"object","properties":{"findings":{"type":"array","items":{"type":"object","properties":{"title":{"type":"string"},"line":{"type":"integer"},"severity":{"type":"string","enum":["low","medium","high"]}},"required":["title","severity"]}}},"required":["findings"]}`

	list, _ := p.Run(t.Context(), textRequest("List the HTTP handler files in this repository, one path per line."))
	if list.Text != "api/users.go\napi/orders.go\napi/admin.go" {
		t.Errorf("listing = %q", list.Text)
	}
	users, _ := p.Run(t.Context(), schemaRequest("Audit api/users.go for SQL injection and command injection.", findings))
	if users.Status != agentapi.StatusCompleted || !strings.Contains(string(users.Output), "string-built SQL") {
		t.Errorf("users audit = %+v", users)
	}
	admin, _ := p.Run(t.Context(), schemaRequest("Audit api/admin.go for SQL injection and command injection.", findings))
	if admin.Status != agentapi.StatusFailed || admin.Error != "context window exceeded" {
		t.Errorf("admin audit = %+v", admin)
	}
	verify, _ := p.Run(t.Context(), schemaRequest("Try to refute this finding in api/users.go: x.", verdictSchema))
	if string(verify.Output) != `{"real":true,"why":"user input reaches fmt.Sprintf"}` {
		t.Errorf("verify = %+v", verify)
	}
}

func TestDelayWaitsBeforeTheOutcome(t *testing.T) {
	p := New(Options{Rules: mustRules(t, `{"rules": [{"match": "slow", "reply": "done", "delayMs": 30}]}`)})
	start := time.Now()
	res, _ := p.Run(t.Context(), textRequest("slow"))
	if el := time.Since(start); el < 30*time.Millisecond {
		t.Errorf("Run returned after %v, before the 30ms delay", el)
	}
	if res.Status != agentapi.StatusCompleted || res.Text != "done" {
		t.Errorf("Run = %+v", res)
	}
}

func TestDelayEndsPromptlyOnCancel(t *testing.T) {
	p := New(Options{Rules: mustRules(t, `{"rules": [{"match": "slow", "reply": "done", "delayMs": 60000}]}`)})
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(10*time.Millisecond, cancel)
	timer := loadbound.Start(t)
	res, err := p.Run(ctx, textRequest("slow"))
	if took := timer.Stop(); err != nil || took.Over(10*time.Millisecond+50*time.Millisecond) {
		t.Errorf("Run took %v (err %v) after a cancel at 10ms", took, err)
	}
	want := agentapi.Result{Status: agentapi.StatusCancelled, Failure: agentapi.FailureCancelled,
		Error: "the child was cancelled before it finished", Usage: agentapi.Usage{InputTokens: 1}}
	if !sameResult(res, want) {
		t.Errorf("Run = %+v, want %+v", res, want)
	}
}

func TestDelayPastTheDeadlineTimesOut(t *testing.T) {
	p := New(Options{Rules: mustRules(t, `{"rules": [{"match": "slow", "reply": "done", "delayMs": 60000}]}`)})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
	defer cancel()
	res, _ := p.Run(ctx, textRequest("slow"))
	if res.Status != agentapi.StatusTimedOut || res.Failure != agentapi.FailureTimeout {
		t.Errorf("Run = %+v, want timed_out", res)
	}
}

func TestContextDoneBeforeStartEndsTheChildAtOnce(t *testing.T) {
	p := New(Options{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	res, _ := p.Run(ctx, textRequest("anything"))
	want := agentapi.Result{Status: agentapi.StatusCancelled, Failure: agentapi.FailureCancelled, Error: "the child was cancelled before it finished"}
	if !sameResult(res, want) {
		t.Errorf("Run = %+v, want %+v", res, want)
	}
	dctx, dcancel := context.WithDeadline(t.Context(), time.Now().Add(-time.Second))
	defer dcancel()
	if res, _ := p.Run(dctx, textRequest("anything")); res.Status != agentapi.StatusTimedOut {
		t.Errorf("Run with a passed deadline = %+v, want timed_out", res)
	}
}

func TestUnsatisfiableSchemaFailsWithInvalidOutput(t *testing.T) {
	p := New(Options{})
	res, err := p.Run(t.Context(), schemaRequest("x", `{"type":"object","properties":{"a":{"not":{}}},"required":["a"]}`))
	if err != nil || res.Status != agentapi.StatusFailed || res.Failure != agentapi.FailureInvalidOutput ||
		!strings.Contains(res.Error, "add a fake rule") {
		t.Errorf("Run = %+v, %v", res, err)
	}
}

func TestBrokenRequestsAndOptionsAreErrors(t *testing.T) {
	if _, err := New(Options{}).Run(t.Context(), schemaRequest("x", `{"type":"array"}`)); err == nil {
		t.Error("Run accepted a schema with an array root")
	}
	p := New(Options{Rules: &Rules{Rules: []Rule{{Match: "("}}}})
	if _, err := p.Run(t.Context(), textRequest("x")); err == nil || !strings.Contains(err.Error(), "rule 1") {
		t.Errorf("Run with a bad Go-built rule: err = %v", err)
	}
}

func TestOutputIsACopyTheCallerMayChange(t *testing.T) {
	p := New(Options{Rules: mustRules(t, `{"rules": [{"match": "v", "reply": {"real": true}}]}`)})
	for _, prompt := range []string{"v", "minimal"} {
		a, _ := p.Run(t.Context(), schemaRequest(prompt, verdictSchema))
		a.Output[0] = 'X'
		b, _ := p.Run(t.Context(), schemaRequest(prompt, verdictSchema))
		if b.Output[0] != '{' {
			t.Errorf("prompt %q: a caller's change to Output leaked into the next result: %s", prompt, b.Output)
		}
	}
}

func TestTextCallWithoutRulesDoesNotAllocate(t *testing.T) {
	p := New(Options{})
	ctx := t.Context()
	req := textRequest("Summarise intro.md in three sentences.")
	if n := testing.AllocsPerRun(100, func() { p.Run(ctx, req) }); n > 0 {
		t.Errorf("Run allocates %v times per text call", n)
	}
}

func BenchmarkRunTextNoRules(b *testing.B) {
	p := New(Options{})
	ctx := context.Background()
	req := textRequest("Summarise intro.md in three sentences.")
	b.ReportAllocs()
	for b.Loop() {
		p.Run(ctx, req)
	}
}

func BenchmarkRunSchemaNoRules(b *testing.B) {
	p := New(Options{})
	ctx := context.Background()
	req := schemaRequest("judge", verdictSchema)
	b.ReportAllocs()
	for b.Loop() {
		p.Run(ctx, req)
	}
}

func sameResult(a, b agentapi.Result) bool {
	return a.Status == b.Status && a.Text == b.Text && string(a.Output) == string(b.Output) &&
		a.Failure == b.Failure && a.Error == b.Error && a.Note == b.Note && a.Usage == b.Usage
}
