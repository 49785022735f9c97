package openai

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/wfrun/wfrun/agentapi"
)

// This file holds what local and third-party servers do differently from
// OpenAI's endpoint, each with the server's real answer.

// rawFail answers with status and body exactly as a server sent them.
func rawFail(status int, body string) step {
	return func(w http.ResponseWriter, _ *http.Request, _ goopenai.ChatCompletionRequest) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}
}

func TestContextLengthErrorsOfRealServersAreRecognised(t *testing.T) {
	for _, tc := range []struct {
		server string
		status int
		body   string
		want   bool
	}{
		{"OpenAI", 400, `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`, true},
		{"llama.cpp llama-server", 400, `{"error":{"code":400,"message":"request (23919 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":23919,"n_ctx":4096}}`, true},
		{"llama.cpp, older wording", 400, `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing the context size or enable context shift","type":"invalid_request_error"}}`, true},
		{"vLLM", 400, `{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5120 tokens (4096 in the messages, 1024 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}`, true},
		{"Ollama", 400, `{"error":{"message":"the input length exceeds the context length","type":"api_error","param":null,"code":null}}`, true},
		{"LM Studio", 400, `{"error":"Trying to keep the first 5210 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input"}`, true},
		{"Hugging Face TGI", 422, `{"error":"Input validation error: ` + "`inputs` tokens + `max_new_tokens`" + ` must be <= 4096. Given: 4000 ` + "`inputs`" + ` tokens and 512 ` + "`max_new_tokens`" + `","error_type":"validation"}`, true},
		{"Anthropic's compatibility endpoint", 400, `{"error":{"type":"invalid_request_error","message":"prompt is too long: 212000 tokens > 200000 maximum"}}`, true},
		{"a bad temperature is not a context error", 400, `{"error":{"message":"temperature is out of range","type":"invalid_request_error","code":"invalid_value"}}`, false},
		{"an unknown model is not a context error", 404, `{"error":{"message":"The model 'nope' does not exist","type":"invalid_request_error","code":"model_not_found"}}`, false},
	} {
		t.Run(tc.server, func(t *testing.T) {
			refusal := rawFail(tc.status, tc.body)
			s := newServer(t, refusal, refusal)
			res := run(t, mustNew(t, testConfig(s)), agentapi.Request{Prompt: "x"})
			if !tc.want {
				wantStatus(t, res, agentapi.StatusFailed, agentapi.FailureTaskFailed)
				if n := len(s.requests()); n != 1 {
					t.Errorf("requests = %d, want 1", n)
				}
				return
			}
			wantStatus(t, res, agentapi.StatusFailed, agentapi.FailureContextLength)
			if n := len(s.requests()); n != 2 {
				t.Errorf("requests = %d, want 2 (the turn and one answer on a trimmed history)", n)
			}
		})
	}
}

func TestAMalformedToolCallIsNeverSentBackAsItCame(t *testing.T) {
	s := newServer(t,
		callTools(usage{prompt: 5, completion: 2}, call{"c1", "Read", `{"file_path"`}, call{"c2", "Read", `{"q":"ok"}`}),
		reply("done", usage{prompt: 9, completion: 1}))
	cfg := testConfig(s)
	var calls []string
	cfg.Toolbox = &toolbox{tools: fakeTools("Read"), fn: func(_ context.Context, _ string, args json.RawMessage) (string, error) {
		calls = append(calls, string(args))
		return "content", nil
	}}
	res := run(t, mustNew(t, cfg), agentapi.Request{Prompt: "x"})
	wantStatus(t, res, agentapi.StatusCompleted, "")
	if len(calls) != 1 || calls[0] != `{"q":"ok"}` {
		t.Errorf("the tool ran with %q, want only the well-formed call", calls)
	}
	history := s.requests()[1].body.Messages
	var assistant goopenai.ChatCompletionMessage
	var reply string
	for _, m := range history {
		if len(m.ToolCalls) > 0 {
			assistant = m
		}
		if m.Role == goopenai.ChatMessageRoleTool && m.ToolCallID == "c1" {
			reply = m.Content
		}
	}
	if len(assistant.ToolCalls) != 2 {
		t.Fatalf("the history's assistant message has %d tool calls, want 2", len(assistant.ToolCalls))
	}
	if got := assistant.ToolCalls[0].Function.Arguments; got != "{}" {
		t.Errorf("the broken call went back with arguments %q, want {}", got)
	}
	if got := assistant.ToolCalls[1].Function.Arguments; got != `{"q":"ok"}` {
		t.Errorf("the well-formed call went back with arguments %q", got)
	}
	contains(t, "the broken call's reply", reply, "not valid JSON")
}

func TestAResumedHistoryWithABrokenToolCallIsMended(t *testing.T) {
	msgs := mendHistory([]goopenai.ChatCompletionMessage{
		{Role: goopenai.ChatMessageRoleSystem, Content: "s"},
		{Role: goopenai.ChatMessageRoleAssistant, ToolCalls: []goopenai.ToolCall{
			{ID: "a", Function: goopenai.FunctionCall{Name: "Read", Arguments: `{"file_path"`}},
			{ID: "b", Function: goopenai.FunctionCall{Name: "Read", Arguments: `[1]`}},
			{ID: "c", Function: goopenai.FunctionCall{Name: "Read", Arguments: ``}},
			{ID: "d", Function: goopenai.FunctionCall{Name: "Read", Arguments: ` {"q": 1} `}},
		}},
	})
	var got []string
	for _, tc := range msgs[1].ToolCalls {
		got = append(got, tc.Function.Arguments)
	}
	want := []string{"{}", "{}", "{}", ` {"q": 1} `}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("mended arguments = %q, want %q", got, want)
	}
}

func TestTheSame500TwiceIsNotRetriedFurther(t *testing.T) {
	// llama-server's answer to a history whose tool call it cannot parse.
	parse := rawFail(500, `{"error":{"code":500,"message":"Failed to parse tool call arguments as JSON: [json.exception.parse_error.101] parse error","type":"server_error"}}`)
	s := newServer(t, parse, parse, parse, parse, parse, parse)
	cfg := testConfig(s)
	cfg.MaxRetries = 5
	res := run(t, mustNew(t, cfg), agentapi.Request{Prompt: "x"})
	wantStatus(t, res, agentapi.StatusFailed, agentapi.FailureUpstreamUnavailable)
	if n := len(s.requests()); n != 2 {
		t.Errorf("requests = %d, want 2 (the same 500 twice ends the retries)", n)
	}
	contains(t, "error", res.Error, "not retried further")
}

func TestDifferent500sAndGatewayErrorsAreStillRetried(t *testing.T) {
	s := newServer(t,
		rawFail(500, `{"error":{"message":"worker 1 crashed","type":"server_error"}}`),
		rawFail(500, `{"error":{"message":"worker 2 crashed","type":"server_error"}}`),
		plainFail(http.StatusBadGateway, "bad gateway"),
		plainFail(http.StatusBadGateway, "bad gateway"),
		reply("fine", usage{prompt: 1, completion: 1}))
	cfg := testConfig(s)
	cfg.MaxRetries = 5
	res := run(t, mustNew(t, cfg), agentapi.Request{Prompt: "x"})
	wantStatus(t, res, agentapi.StatusCompleted, "")
	if n := len(s.requests()); n != 5 {
		t.Errorf("requests = %d, want 5", n)
	}
}

func TestAnAbortedRequestCountsItsPromptAsEstimated(t *testing.T) {
	arrived := make(chan struct{})
	s := newServer(t, hang(arrived))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan agentapi.Result, 1)
	go func() {
		res, err := mustNew(t, testConfig(s)).Run(ctx, agentapi.Request{AgentID: "ag_1", Prompt: strings.Repeat("word ", 3000)})
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	<-arrived
	cancel()
	res := <-done
	wantStatus(t, res, agentapi.StatusCancelled, agentapi.FailureCancelled)
	if res.Usage.EstimatedTokens < 1000 || res.Usage.InputTokens != res.Usage.EstimatedTokens {
		t.Errorf("usage = %+v, want an estimate of the 15,000-character prompt counted as input", res.Usage)
	}
	contains(t, "note", res.Note, "estimated")
}

func TestARequestCancelledBeforeItWasSentCountsNothing(t *testing.T) {
	s := newServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := mustNew(t, testConfig(s)).Run(ctx, agentapi.Request{AgentID: "ag_1", Prompt: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Usage.InputTokens != 0 || len(s.requests()) != 0 {
		t.Errorf("usage = %+v after %d requests, want nothing counted", res.Usage, len(s.requests()))
	}
}

func TestARefusedNamedToolChoiceFallsBackToRequiredAndAPlainTextAnswerCounts(t *testing.T) {
	// llama-server refuses a tool_choice object; the model then answers
	// in plain JSON text, which is checked against the schema as well.
	s := newServer(t,
		rawFail(400, `{"error":{"code":400,"message":"Wrong type supplied for parameter 'tool_choice'. Expected 'string', got 'object'","type":"invalid_request_error"}}`),
		reply(`{"answer":"as text"}`, usage{prompt: 3, completion: 2}),
		reply(`{"answer":"second child"}`, usage{prompt: 3, completion: 2}),
	)
	cfg := testConfig(s)
	cfg.JSONSchemaMode = SchemaTool
	p := mustNew(t, cfg)
	req := agentapi.Request{Prompt: "answer", Schema: json.RawMessage(answerSchema)}
	res := run(t, p, req)
	wantStatus(t, res, agentapi.StatusCompleted, "")
	if string(res.Output) != `{"answer":"as text"}` {
		t.Errorf("output = %s, want the plain-text answer", res.Output)
	}
	if tc := s.requests()[1].body.ToolChoice; tc != "required" {
		t.Errorf("tool_choice after the refusal = %#v, want \"required\"", tc)
	}
	contains(t, "note", res.Note, "tool_choice")
	res = run(t, p, req) // a later child sends "required" at once
	if string(res.Output) != `{"answer":"second child"}` || len(s.requests()) != 3 {
		t.Errorf("second child: output %s after %d requests, want 3 requests", res.Output, len(s.requests()))
	}
	if tc := s.requests()[2].body.ToolChoice; tc != "required" {
		t.Errorf("tool_choice of a later child = %#v, want \"required\"", tc)
	}
}

func TestAnIgnoredNamedToolChoiceFallsBackToRequired(t *testing.T) {
	// llama-server reads a tool_choice object as "auto", without an error:
	// the model answers in plain text, and only "required" is enforced.
	s := newServer(t,
		reply("I think the answer is yes.", usage{prompt: 3, completion: 2}),
		callTools(usage{prompt: 4, completion: 2}, call{"c1", finalAnswerTool, `{"answer":"forced"}`}),
		callTools(usage{prompt: 4, completion: 2}, call{"c2", finalAnswerTool, `{"answer":"second child"}`}),
	)
	cfg := testConfig(s)
	cfg.JSONSchemaMode = SchemaTool
	p := mustNew(t, cfg)
	req := agentapi.Request{Prompt: "answer", Schema: json.RawMessage(answerSchema)}
	res := run(t, p, req)
	wantStatus(t, res, agentapi.StatusCompleted, "")
	if string(res.Output) != `{"answer":"forced"}` {
		t.Errorf("output = %s, want the forced call's", res.Output)
	}
	if tc, ok := s.requests()[0].body.ToolChoice.(map[string]any); !ok || tc["type"] != "function" {
		t.Errorf("first tool_choice = %#v, want one naming final_answer", s.requests()[0].body.ToolChoice)
	}
	if tc := s.requests()[1].body.ToolChoice; tc != "required" {
		t.Errorf("tool_choice after the plain-text answer = %#v, want \"required\"", tc)
	}
	contains(t, "note", res.Note, "ignored a tool_choice")
	res = run(t, p, req) // a later child sends "required" at once
	if string(res.Output) != `{"answer":"second child"}` || s.requests()[2].body.ToolChoice != "required" {
		t.Errorf("second child: output %s, tool_choice %#v, want \"required\" at once", res.Output, s.requests()[2].body.ToolChoice)
	}
}

func TestAnEndpointThatIgnoresEveryToolChoiceIsNamedInTheFailure(t *testing.T) {
	text := reply("plain words", usage{prompt: 3, completion: 2})
	s := newServer(t, text, text, text, text, text, text)
	cfg := testConfig(s)
	cfg.JSONSchemaMode = SchemaTool
	cfg.SchemaRetries = 1
	res := run(t, mustNew(t, cfg), agentapi.Request{Prompt: "answer", Schema: json.RawMessage(answerSchema)})
	wantStatus(t, res, agentapi.StatusFailed, agentapi.FailureInvalidOutput)
	contains(t, "error", res.Error, "does not enforce tool_choice")
	if n := len(s.requests()); n != 3 {
		t.Errorf("requests = %d, want 3 (the named choice, then two answers under \"required\")", n)
	}
}

func TestAnEmptyAnswerGoesBackWithText(t *testing.T) {
	// llama-server refuses an assistant message with neither content nor
	// tool calls (400 "Assistant message must contain either 'content' or
	// 'tool_calls'!"), and go-openai leaves an empty content out.
	s := newServer(t, reply("", usage{prompt: 3, completion: 1}), reply("done", usage{prompt: 5, completion: 1}))
	res := run(t, mustNew(t, testConfig(s)), agentapi.Request{Prompt: "x"})
	wantStatus(t, res, agentapi.StatusCompleted, "")
	history := s.requests()[1].body.Messages
	if len(history) < 4 {
		t.Fatalf("history = %+v", history)
	}
	empty := history[len(history)-2]
	if empty.Role != goopenai.ChatMessageRoleAssistant || empty.Content != emptyAnswer {
		t.Errorf("the empty answer went back as %+v, want content %q", empty, emptyAnswer)
	}
	if resumed := mendHistory([]goopenai.ChatCompletionMessage{{Role: goopenai.ChatMessageRoleAssistant}}); resumed[0].Content != emptyAnswer {
		t.Errorf("a resumed empty answer = %+v", resumed[0])
	}
}
