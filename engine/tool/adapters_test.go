package tool_test

import (
	"context"
	"strings"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/tool"
)

func TestOpenAI_ToolsAndHandlerRoundTrip(t *testing.T) {
	s, _ := newSet(t, "", tool.Options{})
	defs := s.OpenAITools(tool.Workflow, tool.Agent)
	if len(defs) != 2 || defs[0].Function.Name != "workflow" || defs[1].Function.Name != "agent" || defs[0].Type != goopenai.ToolTypeFunction {
		t.Fatalf("%+v", defs)
	}
	if len(s.OpenAITools()) != len(tool.Names()) {
		t.Fatal("OpenAITools() without names does not give every tool")
	}
	msg := s.HandleOpenAI(context.Background(), goopenai.ToolCall{ID: "call_1", Type: goopenai.ToolTypeFunction,
		Function: goopenai.FunctionCall{Name: "workflow", Arguments: `{"script":"export const meta = { name: 'x', description: 'y' }\nreturn 40 + 2"}`}})
	if msg.Role != goopenai.ChatMessageRoleTool || msg.ToolCallID != "call_1" || !strings.HasPrefix(msg.Content, `workflow "x" completed (0 agents`) ||
		!strings.HasSuffix(msg.Content, "\n42") {
		t.Fatalf("%+v", msg)
	}
	msg = s.HandleOpenAI(context.Background(), goopenai.ToolCall{ID: "call_2", Function: goopenai.FunctionCall{Name: "workflow"}})
	if !strings.Contains(msg.Content, "INVALID_REQUEST") {
		t.Fatalf("empty arguments: %+v", msg)
	}
}

func TestToolbox_OffersTheNamedToolsAndReturnsErrorsAsErrors(t *testing.T) {
	s, _ := newSet(t, "", tool.Options{})
	tb := s.Toolbox(tool.Workflow, tool.Agent)
	tools, err := tb.Tools(context.Background())
	if err != nil || len(tools) != 2 || tools[0].Name != "workflow" || len(tools[0].InputSchema) == 0 {
		t.Fatalf("%+v %v", tools, err)
	}
	out, err := tb.Call(context.Background(), "agent", []byte(`{"prompt":"echo me"}`))
	if err != nil || out != "echo me" {
		t.Fatalf("%q %v", out, err)
	}
	if _, err := tb.Call(context.Background(), "workflow", []byte(`{"script":"return 1"}`)); err == nil || !strings.Contains(err.Error(), "META_INVALID") {
		t.Fatalf("a failed run is not an error: %v", err)
	}
	if _, err := tb.Call(context.Background(), "workflow_list", []byte(`{}`)); err == nil {
		t.Fatal("a tool outside the toolbox was called")
	}
}

func TestProgress_AForegroundRunReportsPhaseAndAgentsWithAGrowingStep(t *testing.T) {
	s, _ := newSet(t, "", tool.Options{})
	var got []tool.Progress
	res := s.CallWithProgress(context.Background(), tool.Workflow,
		[]byte(`{"script":"export const meta = { name: 'p', description: 'two phases' }\nphase('One')\nawait agent('a')\nphase('Two')\nawait parallel([() => agent('b'), () => agent('c')])\nreturn 1"}`),
		func(p tool.Progress) { got = append(got, p) })
	if res.IsError {
		t.Fatal(res.Text)
	}
	// run.start, phase, start, end, phase, start, start, end, end
	if len(got) != 9 {
		t.Fatalf("%d reports: %+v", len(got), got)
	}
	for i, p := range got {
		if p.Step != i+1 || p.RunID != res.RunID || p.Name != "p" {
			t.Fatalf("report %d: %+v", i, p)
		}
	}
	last := got[len(got)-1]
	if last.Phase != "Two" || last.Done != 3 || last.Running != 0 || last.Started() != 3 || last.Tokens == 0 {
		t.Fatalf("last %+v", last)
	}
	if msg := last.Message(); !strings.HasPrefix(msg, "Two · agents 3/3 done, 0 running, 0 failed · ") {
		t.Fatalf("message %q", msg)
	}
	_ = engine.EventPhase
}
