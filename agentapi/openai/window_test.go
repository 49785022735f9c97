package openai

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/modelmap"
)

// serverTokens is how the window-enforcing test server counts a request:
// a quarter of the bytes of every message and of the tool definitions, the
// usual rule of thumb for English text. The provider does not know it.
func serverTokens(b goopenai.ChatCompletionRequest) int {
	n := 0
	for _, m := range b.Messages {
		n += len(m.Content)
		for _, tc := range m.ToolCalls {
			n += len(tc.Function.Name) + len(tc.Function.Arguments)
		}
	}
	if len(b.Tools) > 0 {
		data, _ := json.Marshal(b.Tools)
		n += len(data)
	}
	return n / 4
}

// windowed is a step of a server that enforces a context window of limit
// tokens: a request past it gets OpenAI's context_length_exceeded error
// (counted in refused), any other is answered by next, reporting the
// server's count as prompt_tokens.
func windowed(limit int, refused *atomic.Int32, next func(b goopenai.ChatCompletionRequest) map[string]any) step {
	return func(w http.ResponseWriter, r *http.Request, b goopenai.ChatCompletionRequest) {
		if n := serverTokens(b); n > limit {
			refused.Add(1)
			fail(http.StatusBadRequest, "context_length_exceeded",
				"This model's maximum context length is "+strconv.Itoa(limit)+" tokens. However, your messages resulted in "+strconv.Itoa(n)+" tokens.")(w, r, b)
			return
		}
		msg := next(b)
		finish := "stop"
		if msg["tool_calls"] != nil {
			finish = "tool_calls"
		}
		writeCompletion(w, msg, finish, usage{prompt: serverTokens(b), completion: 20})
	}
}

func readCall(id string) func(goopenai.ChatCompletionRequest) map[string]any {
	return func(goopenai.ChatCompletionRequest) map[string]any {
		return map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
			"id": id, "type": "function", "function": map[string]any{"name": "Read", "arguments": `{"q":"` + id + `"}`}}}}
	}
}

func answer(text string) func(goopenai.ChatCompletionRequest) map[string]any {
	return func(goopenai.ChatCompletionRequest) map[string]any {
		return map[string]any{"role": "assistant", "content": text}
	}
}

// bigFiles is a toolbox whose Read returns size bytes of numbered lines.
func bigFiles(size int) *toolbox {
	return &toolbox{tools: fakeTools("Read"), fn: func(_ context.Context, _ string, args json.RawMessage) (string, error) {
		var b strings.Builder
		for i := 0; b.Len() < size; i++ {
			b.WriteString("line of the file, with some content to read ")
			b.WriteString(strconv.Itoa(i))
			b.WriteString("\n")
		}
		return b.String()[:size], nil
	}}
}

func TestToolResultsLargerThanTheWindowAreElidedAndCutToFit(t *testing.T) {
	const window = 3000 // tokens; each Read result is 14,000 bytes, about 3,500 tokens
	var refused atomic.Int32
	s := newServer(t,
		windowed(window, &refused, readCall("r1")),
		windowed(window, &refused, readCall("r2")),
		windowed(window, &refused, readCall("r3")),
		windowed(window, &refused, answer("the summary")),
	)
	cfg := testConfig(s)
	cfg.Toolbox = bigFiles(14_000)
	models, _ := modelmap.Parse([]byte(`{"gpt-4o-mini": {"contextWindow": 3000}}`))
	cfg.Models = models
	res := run(t, mustNew(t, cfg), agentapi.Request{Prompt: "Read the three files and summarise them."})

	wantStatus(t, res, agentapi.StatusCompleted, "")
	if res.Text != "the summary" || refused.Load() != 0 {
		t.Fatalf("text %q with %d refusals, want the summary and no request past the window", res.Text, refused.Load())
	}
	contains(t, "note", res.Note, "elided 2 earlier tool results and cut 3 tool results to stay within the model's context window of 3000 tokens")
	for i, r := range s.requests() {
		t.Logf("request %d: %d tokens by the server's count", i+1, serverTokens(r.body))
	}
	last := s.requests()[3].body
	if last.Messages[1].Content != "Read the three files and summarise them." {
		t.Errorf("the task is gone from the last request: %+v", last.Messages[1])
	}
	var results []string
	for _, m := range last.Messages {
		if m.Role == "tool" {
			results = append(results, m.Content)
		}
	}
	if len(results) != 3 || !isStub(results[0]) || !isStub(results[1]) || !isCut(results[2]) ||
		!strings.HasPrefix(results[2], "line of the file") {
		t.Errorf("tool results in the last request = %.80q, want two stubs and the latest cut", results)
	}
	contains(t, "stub", results[0], "the result of Read (14000 bytes) was removed")
}

func TestAContextLengthErrorGetsOneAnswerOnATrimmedHistory(t *testing.T) {
	// The provider believes gpt-4o-mini's published window (128k); the
	// server serves a smaller one, so the endpoint is the first to object.
	var refused atomic.Int32
	var last goopenai.ChatCompletionRequest
	s := newServer(t,
		windowed(2000, &refused, readCall("r1")),
		windowed(2000, &refused, answer("unreachable")),
		windowed(2000, &refused, func(b goopenai.ChatCompletionRequest) map[string]any {
			last = b
			return answer("best effort")(b)
		}),
	)
	cfg := testConfig(s)
	cfg.Toolbox = bigFiles(12_000)
	res := run(t, mustNew(t, cfg), agentapi.Request{Prompt: "Read the file and summarise it."})

	wantStatus(t, res, agentapi.StatusCompleted, "")
	if res.Text != "best effort" || refused.Load() != 1 {
		t.Fatalf("text %q after %d refusals, want the answer after exactly one", res.Text, refused.Load())
	}
	contains(t, "note", res.Note, "the endpoint refused the conversation as too long; answered on a trimmed history")
	if len(last.Tools) != 0 {
		t.Errorf("the trimmed retry offered tools %v, want none", toolNames(last))
	}
	for _, m := range last.Messages {
		if m.Role == "tool" && !isStub(m.Content) {
			t.Errorf("the trimmed retry still carries a tool result of %d bytes", len(m.Content))
		}
	}
	contains(t, "retry prompt", lastMessage(last).Content, "grew past the model's context window")
}

func TestTrimDropsTheOldestExchangesWhenStubsAreNotEnough(t *testing.T) {
	c := &conversation{p: &Provider{}, ctxw: contextWindow{window: 400}}
	c.msgs = []goopenai.ChatCompletionMessage{
		{Role: "system", Content: "sys"}, {Role: "user", Content: "task"},
	}
	for i := range 6 {
		id := "c" + strconv.Itoa(i)
		c.msgs = append(c.msgs,
			goopenai.ChatCompletionMessage{Role: "assistant", Content: strings.Repeat("thinking ", 40),
				ToolCalls: []goopenai.ToolCall{{ID: id, Type: "function", Function: goopenai.FunctionCall{Name: "Read", Arguments: "{}"}}}},
			goopenai.ChatCompletionMessage{Role: "tool", ToolCallID: id, Name: "Read", Content: strings.Repeat("x", 5000)})
	}
	c.trim()
	if c.estimate(false) > c.ctxw.budget() && len(c.msgs) > 4 {
		t.Errorf("after trim the estimate is %d for a budget of %d with %d messages", c.estimate(false), c.ctxw.budget(), len(c.msgs))
	}
	if c.msgs[0].Content != "sys" || c.msgs[1].Content != "task" {
		t.Errorf("trim lost the system prompt or the task: %+v", c.msgs[:2])
	}
	// Every remaining tool call still has its result right after it.
	for i, m := range c.msgs {
		if m.Role == "assistant" && len(m.ToolCalls) > 0 {
			if i+1 >= len(c.msgs) || c.msgs[i+1].ToolCallID != m.ToolCalls[0].ID || !isStub(c.msgs[i+1].Content) {
				t.Errorf("message %d's tool call lost its (stubbed) result", i)
			}
		}
	}
}

func TestNoElisionWhileTheConversationFits(t *testing.T) {
	s := newServer(t, callTools(usage{prompt: 100, completion: 10}, call{"c1", "Read", `{}`}), reply("done", usage{}))
	cfg := testConfig(s)
	cfg.Toolbox = bigFiles(2_000)
	res := run(t, mustNew(t, cfg), agentapi.Request{Prompt: "x"})
	if strings.Contains(res.Note, "elided") || strings.Contains(res.Note, "cut") {
		t.Errorf("note = %q, want no elision in a 128k window", res.Note)
	}
	if m := lastMessage(s.requests()[1].body); m.Role != "tool" || len(m.Content) != 2000 {
		t.Errorf("the tool result was changed: %d bytes", len(m.Content))
	}
}
