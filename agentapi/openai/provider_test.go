package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/internal/testkit/loadbound"
	"github.com/wfrun/wfrun/internal/wferr"
)

func TestATextAnswerIsTheFinalMessageWithUsageAndCost(t *testing.T) {
	s := newServer(t, reply("Paris.", usage{prompt: 1000, completion: 200, cached: 400}))
	p := mustNew(t, testConfig(s))

	res := run(t, p, agentapi.Request{Prompt: "What is the capital of France?"})

	wantStatus(t, res, agentapi.StatusCompleted, "")
	if res.Text != "Paris." || res.Output != nil || res.Note != "" {
		t.Errorf("result = %+v, want text Paris. and no output or note", res)
	}
	want := agentapi.Usage{InputTokens: 1000, OutputTokens: 200, CachedTokens: 400}
	cost := (600*0.15 + 400*0.075 + 200*0.60) / 1e6
	if got := res.Usage; got.InputTokens != want.InputTokens || got.OutputTokens != want.OutputTokens ||
		got.CachedTokens != want.CachedTokens || math.Abs(got.CostUSD-cost) > 1e-12 {
		t.Errorf("usage = %+v, want %+v with cost %g", got, want, cost)
	}
	body := s.requests()[0].body
	if body.Model != "gpt-4o-mini" || len(body.Messages) != 2 || len(body.Tools) != 0 || body.ResponseFormat != nil {
		t.Fatalf("request = %+v, want model, system+user messages, no tools, no response_format", body)
	}
	if m := body.Messages[0]; m.Role != "system" || !strings.Contains(m.Content, "final message is your return value") ||
		!strings.Contains(m.Content, "never ask questions back") {
		t.Errorf("system message = %+v, want the worker persona", m)
	}
	if m := body.Messages[1]; m.Role != "user" || m.Content != "What is the capital of France?" {
		t.Errorf("user message = %+v, want the prompt", m)
	}
}

func TestRequestModelAndEffortReachTheEndpoint(t *testing.T) {
	s := newServer(t, reply("ok", usage{}))
	p := mustNew(t, testConfig(s))
	run(t, p, agentapi.Request{Prompt: "x", Model: "gpt-4.1", Effort: "high"})
	if b := s.requests()[0].body; b.Model != "gpt-4.1" || b.ReasoningEffort != "high" {
		t.Errorf("model, reasoning_effort = %q, %q; want gpt-4.1, high", b.Model, b.ReasoningEffort)
	}
}

func TestAModelWithoutAPriceCostsZeroAndSaysSo(t *testing.T) {
	s := newServer(t, reply("hi", usage{prompt: 10, completion: 2}))
	cfg := testConfig(s)
	cfg.Model = "llama-3-local"
	res := run(t, mustNew(t, cfg), agentapi.Request{Prompt: "hi"})
	if res.Usage.CostUSD != 0 || res.Note != "no price for model llama-3-local" {
		t.Errorf("cost, note = %g, %q; want 0, \"no price for model llama-3-local\"", res.Usage.CostUSD, res.Note)
	}
}

func TestToolCallsOfOneTurnRunConcurrentlyAndAFailingToolIsAResult(t *testing.T) {
	s := newServer(t,
		callTools(usage{prompt: 10, completion: 5},
			call{"c1", "lookup", `{"q":"a"}`},
			call{"c2", "lookup", `{"q":"b"}`},
			call{"c3", "broken", `{}`}),
		reply("a and b", usage{prompt: 20, completion: 3}),
	)
	// Both lookups must be running at once to get past the barrier.
	var barrier sync.WaitGroup
	barrier.Add(2)
	tb := &toolbox{tools: fakeTools("lookup", "broken"), fn: func(ctx context.Context, name string, args json.RawMessage) (string, error) {
		if name == "broken" {
			return "", errors.New("disk on fire")
		}
		barrier.Done()
		done := make(chan struct{})
		go func() { barrier.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second): // generous: a loaded machine may start it late
			return "", errors.New("the other lookup never started: tool calls are not concurrent")
		}
		var a struct{ Q string }
		_ = json.Unmarshal(args, &a)
		return "result " + a.Q, nil
	}}
	cfg := testConfig(s)
	cfg.Toolbox = tb
	res := run(t, mustNew(t, cfg), agentapi.Request{Prompt: "look up a and b"})

	wantStatus(t, res, agentapi.StatusCompleted, "")
	if res.Text != "a and b" || res.Usage.InputTokens != 30 || res.Usage.OutputTokens != 8 {
		t.Errorf("result = %+v, want text \"a and b\" and usage summed over both turns (30 in, 8 out)", res)
	}
	reqs := s.requests()
	if got := toolNames(reqs[0].body); !reflect.DeepEqual(got, []string{"lookup", "broken"}) {
		t.Errorf("tools offered = %v, want [lookup broken]", got)
	}
	msgs := reqs[1].body.Messages
	if len(msgs) != 6 || msgs[2].Role != "assistant" || len(msgs[2].ToolCalls) != 3 {
		t.Fatalf("second request's messages = %+v, want system, user, assistant with 3 calls, 3 tool results", msgs)
	}
	want := []struct{ id, content string }{{"c1", "result a"}, {"c2", "result b"}, {"c3", "error: disk on fire"}}
	for i, w := range want {
		m := msgs[3+i]
		if m.Role != "tool" || m.ToolCallID != w.id || m.Content != w.content {
			t.Errorf("tool result %d = %+v, want tool message for %s with %q", i, m, w.id, w.content)
		}
	}
}

func TestRequestToolsNarrowTheToolboxAndNeverWidenIt(t *testing.T) {
	tb := &toolbox{tools: fakeTools("a", "b", "c"), fn: func(context.Context, string, json.RawMessage) (string, error) {
		return "ran", nil
	}}
	for _, tc := range []struct {
		name  string
		tools []string
		want  []string
	}{
		{"nil means every tool", nil, []string{"a", "b", "c"}},
		{"a list narrows by name, unknown names are not available", []string{"b", "zzz"}, []string{"b"}},
		{"an empty list means no tools", []string{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, reply("ok", usage{}))
			cfg := testConfig(s)
			cfg.Toolbox = tb
			run(t, mustNew(t, cfg), agentapi.Request{Prompt: "x", Tools: tc.tools})
			if got := toolNames(s.requests()[0].body); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("tools offered = %v, want %v", got, tc.want)
			}
		})
	}

	t.Run("a call to a tool the child was not given is refused", func(t *testing.T) {
		s := newServer(t, callTools(usage{}, call{"c1", "a", `{}`}), reply("ok", usage{}))
		cfg := testConfig(s)
		cfg.Toolbox = tb
		run(t, mustNew(t, cfg), agentapi.Request{Prompt: "x", Tools: []string{"b"}})
		m := lastMessage(s.requests()[1].body)
		contains(t, "tool result", m.Content, `the tool "a" is not available to this agent; available tools: b`)
	})
}

const answerSchema = `{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"]}`

func TestASchemaAnswerIsRetriedWithTheValidationErrorThenAccepted(t *testing.T) {
	s := newServer(t,
		reply(`{"answer": 42}`, usage{prompt: 5, completion: 5}),
		reply("```json\n{\"answer\": \"forty-two\"}\n```", usage{prompt: 7, completion: 5}),
	)
	res := run(t, mustNew(t, testConfig(s)), agentapi.Request{Prompt: "answer", Schema: json.RawMessage(answerSchema)})

	wantStatus(t, res, agentapi.StatusCompleted, "")
	if string(res.Output) != `{"answer":"forty-two"}` || res.Usage.InputTokens != 12 {
		t.Errorf("output, input tokens = %s, %d; want {\"answer\":\"forty-two\"}, 12", res.Output, res.Usage.InputTokens)
	}
	reqs := s.requests()
	rf := reqs[0].body.ResponseFormat
	if rf == nil || rf.Type != "json_schema" || rf.JSONSchema == nil || rf.JSONSchema.Name != "answer" {
		t.Fatalf("response_format = %+v, want json_schema named answer", rf)
	}
	if got, _ := json.Marshal(rf.JSONSchema.Schema); string(got) != answerSchema {
		t.Errorf("response_format schema = %s, want %s", got, answerSchema)
	}
	m := lastMessage(reqs[1].body)
	if m.Role != "user" {
		t.Errorf("retry message role = %q, want user", m.Role)
	}
	contains(t, "retry message", m.Content, "/answer")
}

func TestASchemaAnswerStillInvalidAfterThreeRetriesIsInvalidOutput(t *testing.T) {
	bad := reply(`{"answer": null}`, usage{prompt: 1, completion: 1})
	s := newServer(t, bad, bad, bad, bad)
	res := run(t, mustNew(t, testConfig(s)), agentapi.Request{Prompt: "answer", Schema: json.RawMessage(answerSchema)})

	wantStatus(t, res, agentapi.StatusFailed, agentapi.FailureInvalidOutput)
	if n := len(s.requests()); n != 4 {
		t.Errorf("requests = %d, want 4 (one answer and SchemaRetries=3 retries)", n)
	}
	if res.Usage.InputTokens != 4 {
		t.Errorf("usage = %+v, want the four turns counted", res.Usage)
	}
}

func TestAnEndpointWithoutResponseFormatGetsTheFinalAnswerTool(t *testing.T) {
	finalAnswer := func(args string) step {
		return func(w http.ResponseWriter, r *http.Request, b goopenai.ChatCompletionRequest) {
			if b.ResponseFormat != nil || !reflect.DeepEqual(toolNames(b), []string{"final_answer"}) {
				t.Errorf("request = response_format %+v, tools %v; want no response_format and the final_answer tool", b.ResponseFormat, toolNames(b))
			}
			callTools(usage{}, call{"f1", "final_answer", args})(w, r, b)
		}
	}
	s := newServer(t,
		fail(http.StatusBadRequest, "", "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model."),
		finalAnswer(`{"answer":"via tool"}`),
		finalAnswer(`{"answer":"again"}`), // a later child goes straight to the tool
	)
	p := mustNew(t, testConfig(s))
	req := agentapi.Request{Prompt: "answer", Schema: json.RawMessage(answerSchema)}

	res := run(t, p, req)
	wantStatus(t, res, agentapi.StatusCompleted, "")
	if string(res.Output) != `{"answer":"via tool"}` {
		t.Errorf("output = %s, want the final_answer arguments", res.Output)
	}
	if tc, ok := s.requests()[1].body.ToolChoice.(map[string]any); !ok || fmt.Sprint(tc["function"]) != "map[name:final_answer]" {
		t.Errorf("tool_choice = %#v, want the final_answer function forced", s.requests()[1].body.ToolChoice)
	}
	res = run(t, p, req)
	if string(res.Output) != `{"answer":"again"}` || len(s.requests()) != 3 {
		t.Errorf("second child: output %s after %d requests, want {\"answer\":\"again\"} after 3", res.Output, len(s.requests()))
	}
}

func TestA429PausesEverySiblingUntilRetryAfter(t *testing.T) {
	var first429 atomic.Int64 // unix nanos of the 429
	gotA := make(chan struct{})
	s := newServer(t,
		func(w http.ResponseWriter, r *http.Request, b goopenai.ChatCompletionRequest) {
			first429.Store(time.Now().UnixNano())
			fail(http.StatusTooManyRequests, "rate_limit_exceeded", "Rate limit reached", "Retry-After", "1")(w, r, b)
			close(gotA)
		},
		reply("ok", usage{}),
		reply("ok", usage{}),
	)
	p := mustNew(t, testConfig(s))

	var wg sync.WaitGroup
	results := make([]agentapi.Result, 2)
	wg.Add(1)
	go func() { defer wg.Done(); results[0] = run(t, p, agentapi.Request{Prompt: "A", AgentID: "ag_a"}) }()
	<-gotA
	time.Sleep(100 * time.Millisecond) // let A's client read the 429 and close the gate
	wg.Add(1)
	go func() { defer wg.Done(); results[1] = run(t, p, agentapi.Request{Prompt: "B", AgentID: "ag_b"}) }()
	wg.Wait()

	for _, res := range results {
		wantStatus(t, res, agentapi.StatusCompleted, "")
	}
	t429 := time.Unix(0, first429.Load())
	for _, r := range s.requests()[1:] {
		who := lastMessage(r.body).Content
		if d := r.at.Sub(t429); d < 900*time.Millisecond {
			t.Errorf("child %s's request came %s after the 429, want at least the Retry-After of 1s", who, d)
		}
	}
}

func TestRetriesGiveUpWithTheRightKind(t *testing.T) {
	for _, tc := range []struct {
		name string
		step step
		kind agentapi.FailureKind
	}{
		{"429 after retries is rate_limited", fail(http.StatusTooManyRequests, "rate_limit_exceeded", "slow down"), agentapi.FailureRateLimited},
		{"no healthy upstream is upstream_unavailable", plainFail(http.StatusServiceUnavailable, "no healthy upstream"), agentapi.FailureUpstreamUnavailable},
		{"502 is upstream_unavailable", plainFail(http.StatusBadGateway, "bad gateway"), agentapi.FailureUpstreamUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, tc.step, tc.step, tc.step)
			cfg := testConfig(s)
			cfg.MaxRetries = 2
			res := run(t, mustNew(t, cfg), agentapi.Request{Prompt: "x"})
			wantStatus(t, res, agentapi.StatusFailed, tc.kind)
			if n := len(s.requests()); n != 3 {
				t.Errorf("requests = %d, want 3 (one and MaxRetries=2 retries)", n)
			}
			contains(t, "error", res.Error, "gave up after 2 retries")
		})
	}
}

func TestA500IsRetriedThenSucceeds(t *testing.T) {
	s := newServer(t, fail(http.StatusInternalServerError, "", "boom"), reply("fine", usage{prompt: 3, completion: 1}))
	res := run(t, mustNew(t, testConfig(s)), agentapi.Request{Prompt: "x"})
	wantStatus(t, res, agentapi.StatusCompleted, "")
	if res.Text != "fine" || len(s.requests()) != 2 {
		t.Errorf("text %q after %d requests, want \"fine\" after 2", res.Text, len(s.requests()))
	}
}

func TestA400IsNotRetried(t *testing.T) {
	s := newServer(t, fail(http.StatusBadRequest, "invalid_value", "temperature is out of range"))
	res := run(t, mustNew(t, testConfig(s)), agentapi.Request{Prompt: "x"})
	wantStatus(t, res, agentapi.StatusFailed, agentapi.FailureTaskFailed)
	contains(t, "error", res.Error, "temperature is out of range")
	if n := len(s.requests()); n != 1 {
		t.Errorf("requests = %d, want 1", n)
	}
}

func TestAContextLengthErrorIsRetriedOnceOnATrimmedHistoryThenClassified(t *testing.T) {
	tooLong := fail(http.StatusBadRequest, "context_length_exceeded",
		"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.")
	s := newServer(t, tooLong, tooLong)
	res := run(t, mustNew(t, testConfig(s)), agentapi.Request{Prompt: "x"})
	wantStatus(t, res, agentapi.StatusFailed, agentapi.FailureContextLength)
	contains(t, "error", res.Error, "maximum context length is 128000 tokens")
	if n := len(s.requests()); n != 2 {
		t.Errorf("requests = %d, want 2 (the turn and one answer on a trimmed history)", n)
	}
	contains(t, "retry message", lastMessage(s.requests()[1].body).Content, "grew past the model's context window")
}

func TestA401FailsTheRunWithAgentStartNamingTheVariable(t *testing.T) {
	for _, tc := range []struct {
		name, key, want string
	}{
		{"a wrong key", "sk-wrong", "check OPENAI_API_KEY"},
		{"no key", "", "set OPENAI_API_KEY"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, fail(http.StatusUnauthorized, "invalid_api_key", "Incorrect API key provided"))
			cfg := testConfig(s)
			cfg.APIKey = tc.key
			_, err := mustNew(t, cfg).Run(context.Background(), agentapi.Request{AgentID: "ag_1", Prompt: "x"})
			if wferr.CodeOf(err) != wferr.AgentStart {
				t.Fatalf("err = %v, want an AGENT_START error", err)
			}
			contains(t, "error", err.Error(), tc.want)
			contains(t, "error", err.Error(), "OPENAI_BASE_URL / --base-url")
			if n := len(s.requests()); n != 1 {
				t.Errorf("requests = %d, want 1 (a 401 is not retried)", n)
			}
		})
	}
}

func TestAServerThatNeverAnswersEndsAsTimedOut(t *testing.T) {
	s := newServer(t, hang(nil))
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	timer := loadbound.Start(t)
	res, err := mustNew(t, testConfig(s)).Run(ctx, agentapi.Request{AgentID: "ag_1", Prompt: "x", Timeout: 150 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, res, agentapi.StatusTimedOut, agentapi.FailureTimeout)
	if took := timer.Stop(); took.Over(time.Second) {
		t.Errorf("Run took %v, want about the 150ms deadline", took)
	}
}

func TestAnAttemptPastRequestTimeoutIsRetried(t *testing.T) {
	s := newServer(t, hang(nil), reply("second try", usage{}))
	cfg := testConfig(s)
	cfg.RequestTimeout = 100 * time.Millisecond
	res := run(t, mustNew(t, cfg), agentapi.Request{Prompt: "x"})
	wantStatus(t, res, agentapi.StatusCompleted, "")
	if res.Text != "second try" {
		t.Errorf("text = %q, want the second attempt's answer", res.Text)
	}
}

func TestCancellationAbortsTheRequestInFlight(t *testing.T) {
	arrived := make(chan struct{})
	s := newServer(t, hang(arrived))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type out struct {
		res agentapi.Result
		err error
		at  time.Time
	}
	done := make(chan out, 1)
	go func() {
		res, err := mustNew(t, testConfig(s)).Run(ctx, agentapi.Request{AgentID: "ag_1", Prompt: "x"})
		done <- out{res, err, time.Now()}
	}()
	<-arrived
	timer := loadbound.Start(t)
	cancel()
	select {
	case o := <-done:
		if o.err != nil {
			t.Fatal(o.err)
		}
		wantStatus(t, o.res, agentapi.StatusCancelled, agentapi.FailureCancelled)
		if took := timer.Stop(); took.Over(200 * time.Millisecond) {
			t.Errorf("Run returned %v after the cancel, want under 200ms on an idle machine", took)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after its context was cancelled")
	}
}

func TestConnectionRefusedIsUpstreamUnavailable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	p := mustNew(t, Config{BaseURL: "http://" + addr + "/v1", Model: "m", RetryBaseDelay: time.Millisecond})
	res := run(t, p, agentapi.Request{Prompt: "x"})
	wantStatus(t, res, agentapi.StatusFailed, agentapi.FailureUpstreamUnavailable)
	contains(t, "error", res.Error, "connection refused")
}

func TestTheTurnLimitEndsWithOneLastTurnWithoutTools(t *testing.T) {
	loop := callTools(usage{prompt: 1, completion: 1}, call{"c", "a", `{}`})
	tb := &toolbox{tools: fakeTools("a"), fn: func(context.Context, string, json.RawMessage) (string, error) { return "more", nil }}

	t.Run("an answer in the last turn completes with a note", func(t *testing.T) {
		s := newServer(t, loop, loop, reply("best effort", usage{prompt: 1, completion: 1}))
		cfg := testConfig(s)
		cfg.Toolbox = tb
		res := run(t, mustNew(t, cfg), agentapi.Request{Prompt: "x", MaxTurns: 2})
		wantStatus(t, res, agentapi.StatusCompleted, "")
		if res.Text != "best effort" || res.Note != "max_turns reached" || res.Usage.InputTokens != 3 {
			t.Errorf("result = %+v, want text \"best effort\", note max_turns reached, 3 input tokens", res)
		}
		last := s.requests()[2].body
		if len(last.Tools) != 0 {
			t.Errorf("last turn offered tools %v, want none", toolNames(last))
		}
		contains(t, "last user message", lastMessage(last).Content, "used all your turns")
	})

	t.Run("no answer in the last turn is max_turns", func(t *testing.T) {
		s := newServer(t, loop, reply("", usage{}))
		cfg := testConfig(s)
		cfg.Toolbox = tb
		cfg.MaxTurns = 1
		res := run(t, mustNew(t, cfg), agentapi.Request{Prompt: "x"})
		wantStatus(t, res, agentapi.StatusFailed, agentapi.FailureMaxTurns)
	})
}

func TestTheTranscriptRecordsTheConversation(t *testing.T) {
	s := newServer(t, callTools(usage{prompt: 2, completion: 1}, call{"c1", "a", `{}`}), reply("done", usage{prompt: 3, completion: 1}))
	dir := t.TempDir()
	cfg := testConfig(s)
	cfg.TranscriptDir = dir + "/transcripts"
	cfg.Toolbox = &toolbox{tools: fakeTools("a"), fn: func(context.Context, string, json.RawMessage) (string, error) { return "tool says hi", nil }}
	run(t, mustNew(t, cfg), agentapi.Request{Prompt: "x", AgentID: "ag_7"})

	data, err := os.ReadFile(cfg.TranscriptDir + "/ag_7.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("line %q is not JSON: %v", line, err)
		}
		types = append(types, fmt.Sprint(r["type"]))
		if r["type"] == "tool_result" && r["content"] != "tool says hi" {
			t.Errorf("tool_result = %v, want the tool's content", r)
		}
		if r["type"] == "end" && (r["status"] != "completed" || fmt.Sprint(r["usage"].(map[string]any)["inputTokens"]) != "5") {
			t.Errorf("end = %v, want completed with 5 input tokens", r)
		}
	}
	want := []string{"start", "message", "message", "usage", "message", "tool_result", "usage", "message", "end"}
	if !reflect.DeepEqual(types, want) {
		t.Errorf("record types = %v, want %v", types, want)
	}
}
