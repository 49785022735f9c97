package openai

import (
	"bytes"
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
	"github.com/wfrun/wfrun/internal/testkit/llamaserver"
)

// This file is the long suite against llama.cpp's own llama-server
// (internal/testkit/llamaserver; skipped unless WFRUN_LLAMA_SERVER is set,
// docs/testing.md). The server is real and serves a tiny generated model
// whose answers are noise; where a test needs the model to say something
// particular (a malformed tool call, a tool call at all), a proxy in front
// of the server answers that one turn itself, and every other request
// goes to the server and back unchanged. So what is asserted about the
// server — its error bodies, what it accepts, what it ignores, its token
// counts — is the server's own.

// okSchema bounds what the model can say: the server turns it into a
// grammar, so even noise comes out as {"ok": true} or {"ok": false}.
const okSchema = `{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"],"additionalProperties":false}`

// proxied is one request the proxy passed on, or answered itself (status 0).
type proxied struct {
	body   []byte
	status int
	answer []byte
}

// proxyStep answers one request instead of the server; nil forwards it.
type proxyStep func(p *llamaProxy, w http.ResponseWriter, r *http.Request, body []byte)

// llamaProxy sits between the provider and llama-server on loopback.
type llamaProxy struct {
	*httptest.Server
	t        *testing.T
	upstream string
	client   *http.Client

	mu    sync.Mutex
	steps []proxyStep
	got   []proxied
}

func newLlamaProxy(t *testing.T, upstream string, steps ...proxyStep) *llamaProxy {
	t.Helper()
	tr := &http.Transport{}
	p := &llamaProxy{t: t, upstream: upstream, client: &http.Client{Transport: tr}, steps: steps}
	p.Server = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(func() { p.Close(); tr.CloseIdleConnections() })
	return p
}

func (p *llamaProxy) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	p.mu.Lock()
	n := len(p.got)
	p.got = append(p.got, proxied{body: body})
	var st proxyStep
	if n < len(p.steps) {
		st = p.steps[n]
	}
	p.mu.Unlock()
	if st != nil {
		st(p, w, r, body)
		return
	}
	status, answer, err := p.forward(r.Context(), r.URL.Path, body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(answer)
}

// forward sends body to the server and records its answer as request n's.
func (p *llamaProxy) forward(ctx context.Context, path string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.upstream+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	p.mu.Lock()
	for i := len(p.got) - 1; i >= 0; i-- {
		if bytes.Equal(p.got[i].body, body) && p.got[i].status == 0 {
			p.got[i].status, p.got[i].answer = resp.StatusCode, answer
			break
		}
	}
	p.mu.Unlock()
	return resp.StatusCode, answer, err
}

func (p *llamaProxy) requests() []proxied {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]proxied(nil), p.got...)
}

// modelSays answers one turn as the model would have: with msg.
func modelSays(msg map[string]any, finish string) proxyStep {
	return func(_ *llamaProxy, w http.ResponseWriter, _ *http.Request, _ []byte) {
		writeCompletion(w, msg, finish, usage{prompt: 10, completion: 5})
	}
}

func modelCalls(name, args string) proxyStep {
	return modelSays(map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{
		map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": name, "arguments": args}},
	}}, "tool_calls")
}

// holdAfterServer forwards the request, lets the server answer it in
// full, sends the server's answer on done, and then holds the client until
// it goes away.
func holdAfterServer(done chan<- proxied) proxyStep {
	return func(p *llamaProxy, _ http.ResponseWriter, r *http.Request, body []byte) {
		status, answer, err := p.forward(r.Context(), r.URL.Path, body)
		if err != nil {
			p.t.Errorf("proxy: %v", err)
		}
		done <- proxied{body: body, status: status, answer: answer}
		<-r.Context().Done()
	}
}

// llamaConfig is a provider on base with fast retries and a client whose
// connections the test closes.
func llamaConfig(t *testing.T, base string) Config {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return Config{BaseURL: base, Model: "tiny-random", RetryBaseDelay: time.Millisecond, MaxRetries: 5,
		HTTPClient: &http.Client{Transport: tr}}
}

// readTool is a Read whose argument the grammar bounds (one possible path).
func readTool(content string) *toolbox {
	return &toolbox{
		tools: []agentapi.Tool{{Name: "Read", Description: "Read a file.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"file_path":{"type":"string","enum":["notes.txt"]}},"required":["file_path"],"additionalProperties":false}`)}},
		fn: func(context.Context, string, json.RawMessage) (string, error) { return content, nil },
	}
}

// serverError is the error object of a llama-server answer.
func serverError(t *testing.T, answer []byte) (typ, msg string) {
	t.Helper()
	var e struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(answer, &e); err != nil {
		t.Fatalf("the server's answer is not an error object: %v\n%s", err, answer)
	}
	return e.Error.Type, e.Error.Message
}

func TestLlamaServerContextSizeErrorGetsTheTrimmedRetry(t *testing.T) {
	srv := llamaserver.Start(t, llamaserver.Options{CtxSize: 1024})
	// The model reads a file far longer than the server's context.
	proxy := newLlamaProxy(t, srv.URL, modelCalls("Read", `{"file_path":"notes.txt"}`))
	cfg := llamaConfig(t, proxy.URL+"/v1")
	cfg.Toolbox = readTool(strings.Repeat("The quick brown fox jumps over the lazy dog. ", 400))
	res := run(t, mustNew(t, cfg), agentapi.Request{Prompt: "Is notes.txt about a fox?", Schema: json.RawMessage(okSchema)})

	got := proxy.requests()
	if len(got) != 3 {
		t.Fatalf("requests = %d, want 3 (the model's call, the too-long history, the trimmed one): %s", len(got), res.Error)
	}
	if got[1].status != http.StatusBadRequest {
		t.Fatalf("the long history got %d, want 400:\n%s", got[1].status, got[1].answer)
	}
	typ, msg := serverError(t, got[1].answer)
	if typ != "exceed_context_size_error" || !strings.Contains(msg, "exceeds the available context size") {
		t.Errorf("the server's refusal = %s %q, want exceed_context_size_error", typ, msg)
	}
	t.Logf("llama-server (%s) refused the long history: %s", srv.Version, got[1].answer)
	if got[2].status != http.StatusOK {
		t.Errorf("the trimmed history got %d, want 200:\n%s", got[2].status, got[2].answer)
	}
	if len(got[2].body) >= len(got[1].body)/2 {
		t.Errorf("the trimmed request has %d bytes, the refused one %d: the tool result was not cut", len(got[2].body), len(got[1].body))
	}
	wantStatus(t, res, agentapi.StatusCompleted, "")
	contains(t, "note", res.Note, "answered on a trimmed history")
	if !json.Valid(res.Output) {
		t.Errorf("output = %s", res.Output)
	}
}

func TestLlamaServerGetsAMalformedToolCallMended(t *testing.T) {
	srv := llamaserver.Start(t, llamaserver.Options{})
	// The model's call is cut off after its first key.
	proxy := newLlamaProxy(t, srv.URL, modelCalls("Read", `{"file_path"`))
	cfg := llamaConfig(t, proxy.URL+"/v1")
	cfg.Toolbox = readTool("hello")
	// Two turns: the model's call, the server's turn (this model calls
	// Read whenever it may), then the last turn without tools answers.
	res := run(t, mustNew(t, cfg), agentapi.Request{Prompt: "Read notes.txt.", Schema: json.RawMessage(okSchema), MaxTurns: 2})

	got := proxy.requests()
	if len(got) < 2 {
		t.Fatalf("requests = %d, want the model's call and the next turn: %s", len(got), res.Error)
	}
	if got[1].status != http.StatusOK {
		t.Fatalf("the history with the mended call got %d, want 200:\n%s", got[1].status, got[1].answer)
	}
	var sent goopenai.ChatCompletionRequest
	if err := json.Unmarshal(got[1].body, &sent); err != nil {
		t.Fatal(err)
	}
	var call *goopenai.ToolCall
	for i := range sent.Messages {
		if len(sent.Messages[i].ToolCalls) > 0 {
			call = &sent.Messages[i].ToolCalls[0]
		}
	}
	if call == nil || call.Function.Arguments != "{}" {
		t.Fatalf("the history's call = %+v, want arguments {}", call)
	}
	wantStatus(t, res, agentapi.StatusCompleted, "")

	// The same body with the call as the model sent it: the server's 500.
	unmended := bytes.Replace(got[1].body, []byte(`"arguments":"{}"`), []byte(`"arguments":"{\"file_path\""`), 1)
	if bytes.Equal(unmended, got[1].body) {
		t.Fatal("the recorded body has no arguments {} to put back")
	}
	status, answer := postJSON(t, srv.URL+"/v1/chat/completions", unmended)
	if status != http.StatusInternalServerError {
		t.Fatalf("the unmended history got %d, want the server's 500:\n%s", status, answer)
	}
	if _, msg := serverError(t, answer); !strings.Contains(msg, "Failed to parse tool call arguments as JSON") {
		t.Errorf("the server's 500 says %q", msg)
	}
	t.Logf("llama-server (%s) answered the unmended history: %s", srv.Version, answer)
}

func postJSON(t *testing.T, url string, body []byte) (int, []byte) {
	t.Helper()
	tr := &http.Transport{DisableKeepAlives: true}
	resp, err := (&http.Client{Transport: tr}).Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, answer
}

func TestLlamaServerDeterministic500IsNotRetriedFiveTimes(t *testing.T) {
	srv := llamaserver.Start(t, llamaserver.Options{})
	proxy := newLlamaProxy(t, srv.URL) // forwards everything, and counts
	p := mustNew(t, llamaConfig(t, proxy.URL+"/v1"))
	// A history as an older wfrun sent it: the model's broken call as it came.
	creq := goopenai.ChatCompletionRequest{Model: "tiny-random", Messages: []goopenai.ChatCompletionMessage{
		{Role: goopenai.ChatMessageRoleSystem, Content: "You are a worker."},
		{Role: goopenai.ChatMessageRoleUser, Content: "Read notes.txt."},
		{Role: goopenai.ChatMessageRoleAssistant, ToolCalls: []goopenai.ToolCall{{ID: "call_1", Type: goopenai.ToolTypeFunction,
			Function: goopenai.FunctionCall{Name: "Read", Arguments: `{"file_path"`}}}},
		{Role: goopenai.ChatMessageRoleTool, ToolCallID: "call_1", Content: "the arguments of Read are not valid JSON"},
	}}
	_, err := p.complete(context.Background(), creq)
	if err == nil {
		t.Fatal("the server accepted the broken history")
	}
	got := proxy.requests()
	for i, r := range got {
		if r.status != http.StatusInternalServerError || !strings.Contains(string(r.answer), "Failed to parse tool call arguments as JSON") {
			t.Errorf("attempt %d got %d: %s", i+1, r.status, r.answer)
		}
	}
	if len(got) != 2 {
		t.Errorf("attempts = %d, want 2: the same 500 twice ends the retries (MaxRetries is 5)", len(got))
	}
	contains(t, "error", err.Error(), "not retried further")
}

func TestLlamaServerAbortedRequestCountsAnEstimateNearTheServersCount(t *testing.T) {
	srv := llamaserver.Start(t, llamaserver.Options{})
	served := make(chan proxied, 1)
	proxy := newLlamaProxy(t, srv.URL, holdAfterServer(served))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	prompt := strings.Repeat("Count the words of this sentence and then some more. ", 150)
	done := make(chan agentapi.Result, 1)
	go func() {
		res, err := mustNew(t, llamaConfig(t, proxy.URL+"/v1")).Run(ctx, agentapi.Request{AgentID: "ag_1", Prompt: prompt})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	s := <-served // the server has processed the prompt; the child has not heard back
	cancel()
	res := <-done
	wantStatus(t, res, agentapi.StatusCancelled, agentapi.FailureCancelled)

	if s.status != http.StatusOK {
		t.Fatalf("the server answered %d:\n%s", s.status, s.answer)
	}
	var answer goopenai.ChatCompletionResponse
	if err := json.Unmarshal(s.answer, &answer); err != nil {
		t.Fatal(err)
	}
	counted := int64(answer.Usage.PromptTokens)
	est := res.Usage.EstimatedTokens
	t.Logf("llama-server counted %d prompt tokens; the aborted child counted an estimated %d", counted, est)
	if counted < 1000 {
		t.Fatalf("the server counted %d prompt tokens, want the long prompt's", counted)
	}
	if est < counted/2 || est > counted*2 || res.Usage.InputTokens != est {
		t.Errorf("usage = %+v, want an estimate within a factor of 2 of the server's %d, counted as input", res.Usage, counted)
	}
	contains(t, "note", res.Note, "estimated")
}

func TestLlamaServerIgnoresANamedToolChoiceAndRequiredIsUsed(t *testing.T) {
	srv := llamaserver.Start(t, llamaserver.Options{})
	proxy := newLlamaProxy(t, srv.URL)
	cfg := llamaConfig(t, proxy.URL+"/v1")
	cfg.JSONSchemaMode = SchemaTool
	res := run(t, mustNew(t, cfg), agentapi.Request{Prompt: "Is the sky blue?", Schema: json.RawMessage(okSchema)})

	got := proxy.requests()
	if len(got) < 2 {
		t.Fatalf("requests = %d, want the named tool_choice and then \"required\": %s %s", len(got), res.Status, res.Error)
	}
	var first, second goopenai.ChatCompletionRequest
	_ = json.Unmarshal(got[0].body, &first)
	_ = json.Unmarshal(got[1].body, &second)
	if _, named := first.ToolChoice.(map[string]any); !named || got[0].status != http.StatusOK {
		t.Errorf("first request: tool_choice %#v answered %d, want a named choice answered 200 (the server ignores it)", first.ToolChoice, got[0].status)
	}
	var reply goopenai.ChatCompletionResponse
	if err := json.Unmarshal(got[0].answer, &reply); err == nil && len(reply.Choices) > 0 && len(reply.Choices[0].Message.ToolCalls) > 0 {
		t.Errorf("the server answered the named tool_choice with a call: %s", got[0].answer)
	}
	if !strings.Contains(srv.Log(), "Wrong type supplied for parameter 'tool_choice'") {
		t.Errorf("the server's log does not say that it ignored the tool_choice:\n%s", srv.Log())
	}
	if second.ToolChoice != "required" {
		t.Errorf("second request's tool_choice = %#v, want \"required\"", second.ToolChoice)
	}
	wantStatus(t, res, agentapi.StatusCompleted, "")
	var out struct {
		OK *bool `json:"ok"`
	}
	if err := json.Unmarshal(res.Output, &out); err != nil || out.OK == nil {
		t.Errorf("output = %s, want the forced final_answer's {\"ok\": …}", res.Output)
	}
	contains(t, "note", res.Note, "ignored a tool_choice")
}
