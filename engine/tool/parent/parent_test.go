package parent_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/openai"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/enginetest"
	"github.com/wfrun/wfrun/engine/tool"
	"github.com/wfrun/wfrun/engine/tool/parent"
)

// model is an OpenAI-compatible server on loopback that answers the i-th
// chat completion with the i-th answer and keeps the requests.
type model struct {
	mu       sync.Mutex
	answers  []map[string]any // the assistant messages, in order
	requests []map[string]any
	status   int // when not 0, every answer is this HTTP error
}

func (m *model) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	data, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(data, &body)
	m.mu.Lock()
	n := len(m.requests)
	m.requests = append(m.requests, body)
	m.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if m.status != 0 || n >= len(m.answers) {
		status := m.status
		if status == 0 {
			status = http.StatusBadRequest
		}
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": "refused", "type": "invalid_request_error", "code": "refused"}})
		return
	}
	msg := m.answers[n]
	finish := "stop"
	if msg["tool_calls"] != nil {
		finish = "tool_calls"
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "c", "object": "chat.completion", "created": 1, "model": "m",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
	})
}

func say(text string) map[string]any { return map[string]any{"role": "assistant", "content": text} }

func callTool(name string, args any) map[string]any {
	raw, _ := json.Marshal(args)
	return map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
		"id": "call1", "type": "function", "function": map[string]any{"name": name, "arguments": string(raw)}}}}
}

// toolNames are the tools a request offered the model.
func toolNames(req map[string]any) []string {
	var names []string
	tools, _ := req["tools"].([]any)
	for _, t := range tools {
		fn, _ := t.(map[string]any)["function"].(map[string]any)
		name, _ := fn["name"].(string)
		names = append(names, name)
	}
	return names
}

func TestTheParentAnswersItsTaskWithItsTools(t *testing.T) {
	script := "export const meta = { name: 'two', description: 'two opinions' }\nreturn await Promise.all([agent('tabs?'), agent('spaces?')])"
	cases := []struct {
		name      string
		answers   []map[string]any
		status    int
		cancel    bool
		answer    string // "" the run fails
		errSays   string
		requests  int
		toolReply string // a word of the tool's result in the second request
	}{
		{name: "an answer without tools", answers: []map[string]any{say("Tabs.")}, answer: "Tabs.", requests: 1},
		{name: "a workflow, then the answer", answers: []map[string]any{callTool("workflow", map[string]any{"script": script}), say("Pick one.")}, answer: "Pick one.", requests: 2, toolReply: "completed"},
		{name: "the model refuses", status: http.StatusBadRequest, errSays: "the parent agent did not finish: failed", requests: 1},
		{name: "cancelled", answers: []map[string]any{say("never read")}, cancel: true, errSays: "the parent agent did not finish: cancelled"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := &model{answers: c.answers, status: c.status}
			srv := httptest.NewServer(m)
			defer srv.Close()
			var events []engine.Event
			var shown []string
			var mu sync.Mutex
			eng := enginetest.New(t, engine.Config{})
			p, err := parent.New(eng, parent.Config{
				Model:      openai.Config{BaseURL: srv.URL + "/v1", APIKey: "k", Model: "m"},
				Tools:      tool.Options{OnEvent: func(ev engine.Event) { mu.Lock(); events = append(events, ev); mu.Unlock() }},
				ShowScript: func(text string) { mu.Lock(); shown = append(shown, text); mu.Unlock() },
			})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			if c.cancel {
				cancel()
			}
			res, err := p.Run(ctx, "Settle tabs versus spaces")
			cancel()
			p.Close(context.Background(), "the test is over")
			if c.answer != "" {
				if err != nil || res.Status != agentapi.StatusCompleted || res.Text != c.answer {
					t.Fatalf("Run = %+v, %v; want the answer %q", res, err, c.answer)
				}
			} else if err == nil || !strings.Contains(err.Error(), c.errSays) {
				t.Fatalf("Run = %+v, %v; want an error saying %q", res, err, c.errSays)
			}
			m.mu.Lock()
			defer m.mu.Unlock()
			if c.requests > 0 && len(m.requests) != c.requests {
				t.Fatalf("%d requests to the model, want %d", len(m.requests), c.requests)
			}
			if len(m.requests) == 0 {
				return
			}
			first, _ := json.Marshal(m.requests[0])
			if !strings.Contains(string(first), "You are the parent agent of wfrun") || !strings.Contains(string(first), "Task: Settle tabs versus spaces") {
				t.Errorf("the first request lacks the parent's prompt:\n%s", first)
			}
			if got := toolNames(m.requests[0]); !slices.Contains(got, "workflow") || !slices.Contains(got, "agent") || slices.Contains(got, "workflow_list") {
				t.Errorf("the parent's tools are %q, want workflow and agent and none of the background tools", got)
			}
			if c.toolReply != "" {
				second, _ := json.Marshal(m.requests[1])
				if !strings.Contains(string(second), c.toolReply) {
					t.Errorf("the second request lacks the workflow's result:\n%s", second)
				}
				mu.Lock()
				defer mu.Unlock()
				if len(events) == 0 || events[0].Type != engine.EventRunStart {
					t.Errorf("the tool options' OnEvent saw %d events", len(events))
				}
				if want := "--- workflow script ---\n" + script + "\n--- end of script ---\n"; !slices.Equal(shown, []string{want}) {
					t.Errorf("ShowScript got %q, want %q", shown, want)
				}
			}
		})
	}
}

func TestNewSaysWhatTheModelLacks(t *testing.T) {
	eng := enginetest.New(t, engine.Config{})
	_, err := parent.New(eng, parent.Config{})
	if err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Fatalf("New without an endpoint = %v, want a sentence naming OPENAI_API_KEY", err)
	}
}

func TestToolsAreWorkflowAgentAndTheSubagentTools(t *testing.T) {
	want := append([]tool.Name{tool.Workflow, tool.Agent}, tool.SubagentNames()...)
	if got := parent.Tools(); !slices.Equal(got, want) {
		t.Errorf("Tools() = %q, want %q", got, want)
	}
}
