package openai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/wfrun/wfrun/agentapi"
)

// This file holds the test's OpenAI-compatible server: a real HTTP server
// on loopback that answers each request with the next step of a script.

// step answers one request. body is the decoded request.
type step func(w http.ResponseWriter, r *http.Request, body goopenai.ChatCompletionRequest)

// received is one request the server got.
type received struct {
	at     time.Time
	header http.Header
	body   goopenai.ChatCompletionRequest
}

type scriptServer struct {
	*httptest.Server
	t *testing.T

	mu    sync.Mutex
	steps []step
	got   []received
}

// newServer starts a server that answers the i-th request with steps[i].
// A request past the script fails the test.
func newServer(t *testing.T, steps ...step) *scriptServer {
	t.Helper()
	s := &scriptServer{t: t, steps: steps}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *scriptServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" {
		http.Error(w, "unexpected path "+r.URL.Path, http.StatusNotFound)
		return
	}
	data, _ := io.ReadAll(r.Body)
	var body goopenai.ChatCompletionRequest
	if err := json.Unmarshal(data, &body); err != nil {
		s.t.Errorf("server: request body is not a chat completion request: %v\n%s", err, data)
	}
	s.mu.Lock()
	n := len(s.got)
	s.got = append(s.got, received{at: time.Now(), header: r.Header.Clone(), body: body})
	var st step
	if n < len(s.steps) {
		st = s.steps[n]
	}
	s.mu.Unlock()
	if st == nil {
		s.t.Errorf("server: request %d is past the script", n+1)
		http.Error(w, "unscripted", http.StatusTeapot)
		return
	}
	st(w, r, body)
}

// requests returns what the server received so far.
func (s *scriptServer) requests() []received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]received(nil), s.got...)
}

// url is the base URL a Config needs.
func (s *scriptServer) url() string { return s.URL + "/v1" }

type usage struct{ prompt, completion, cached int }

func writeCompletion(w http.ResponseWriter, msg map[string]any, finish string, u usage) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "created": 1, "model": "test",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage": map[string]any{
			"prompt_tokens": u.prompt, "completion_tokens": u.completion, "total_tokens": u.prompt + u.completion,
			"prompt_tokens_details": map[string]any{"cached_tokens": u.cached},
		},
	})
}

// reply answers with an assistant message.
func reply(text string, u usage) step {
	return func(w http.ResponseWriter, _ *http.Request, _ goopenai.ChatCompletionRequest) {
		writeCompletion(w, map[string]any{"role": "assistant", "content": text}, "stop", u)
	}
}

type call struct{ id, name, args string }

// callTools answers with tool calls.
func callTools(u usage, calls ...call) step {
	return func(w http.ResponseWriter, _ *http.Request, _ goopenai.ChatCompletionRequest) {
		var tc []any
		for _, c := range calls {
			tc = append(tc, map[string]any{"id": c.id, "type": "function",
				"function": map[string]any{"name": c.name, "arguments": c.args}})
		}
		writeCompletion(w, map[string]any{"role": "assistant", "content": nil, "tool_calls": tc}, "tool_calls", u)
	}
}

// fail answers with an HTTP error in OpenAI's error format.
func fail(status int, code, message string, header ...string) step {
	return func(w http.ResponseWriter, _ *http.Request, _ goopenai.ChatCompletionRequest) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
			"message": message, "type": "invalid_request_error", "code": code}})
	}
}

// plainFail answers with a body that is not OpenAI's error format, as
// proxies do ("no healthy upstream").
func plainFail(status int, text string) step {
	return func(w http.ResponseWriter, _ *http.Request, _ goopenai.ChatCompletionRequest) {
		http.Error(w, text, status)
	}
}

// hang never answers: it returns when the client goes away. arrived, when
// not nil, is closed on arrival.
func hang(arrived chan<- struct{}) step {
	return func(_ http.ResponseWriter, r *http.Request, _ goopenai.ChatCompletionRequest) {
		if arrived != nil {
			close(arrived)
		}
		<-r.Context().Done()
	}
}

// testConfig is a Config for s with fast retries.
func testConfig(s *scriptServer) Config {
	return Config{BaseURL: s.url(), APIKey: "sk-test", Model: "gpt-4o-mini", RetryBaseDelay: time.Millisecond}
}

func mustNew(t *testing.T, cfg Config) *Provider {
	t.Helper()
	p, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return p
}

func run(t *testing.T, p *Provider, req agentapi.Request) agentapi.Result {
	t.Helper()
	if req.AgentID == "" {
		req.AgentID = "ag_1"
	}
	res, err := p.Run(context.Background(), req)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

// toolbox is a Toolbox for tests: its tools answer through fn.
type toolbox struct {
	tools []agentapi.Tool
	fn    func(ctx context.Context, name string, args json.RawMessage) (string, error)
}

func (b *toolbox) Tools(context.Context) ([]agentapi.Tool, error) { return b.tools, nil }

func (b *toolbox) Call(ctx context.Context, name string, args json.RawMessage) (string, error) {
	return b.fn(ctx, name, args)
}

func fakeTools(names ...string) []agentapi.Tool {
	var ts []agentapi.Tool
	for _, n := range names {
		ts = append(ts, agentapi.Tool{Name: n, Description: "the " + n + " tool",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)})
	}
	return ts
}

func toolNames(r goopenai.ChatCompletionRequest) []string {
	var names []string
	for _, t := range r.Tools {
		names = append(names, t.Function.Name)
	}
	return names
}

func lastMessage(r goopenai.ChatCompletionRequest) goopenai.ChatCompletionMessage {
	return r.Messages[len(r.Messages)-1]
}

func wantStatus(t *testing.T, res agentapi.Result, status agentapi.Status, kind agentapi.FailureKind) {
	t.Helper()
	if res.Status != status || res.Failure != kind {
		t.Fatalf("result = %s/%q (%s), want %s/%q", res.Status, res.Failure, res.Error, status, kind)
	}
}

func contains(t *testing.T, what, s, sub string) {
	t.Helper()
	if !strings.Contains(s, sub) {
		t.Errorf("%s = %q, want it to contain %q", what, s, sub)
	}
}
