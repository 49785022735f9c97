package tool_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/enginetest"
	"github.com/wfrun/wfrun/engine/subagent"
	"github.com/wfrun/wfrun/engine/tool"
)

// FuzzCall feeds arbitrary bytes to every tool's input parser: the call
// must come back as a Result, never panic, and bad input must say so.
func FuzzCall(f *testing.F) {
	for _, seed := range []string{
		`{}`, `null`, `[]`, `"x"`, `{"script":"return 1"}`, `{"runId":"wf_0"}`, `{"prompt":""}`,
		`{"script":1}`, `{"timeoutMs":-1,"runId":"wf_x"}`, `{"tools":[1]}`, `{"schema":[]}`, `{"a":`, "\x00",
	} {
		f.Add(seed)
	}
	s := tool.New(enginetest.New(f, engine.Config{}), tool.Options{})
	f.Fuzz(func(t *testing.T, input string) {
		for _, name := range []tool.Name{tool.WorkflowStatus, tool.WorkflowWait, tool.WorkflowCancel, tool.WorkflowList, tool.Agent} {
			if name == tool.Agent && strings.Contains(input, "prompt") && json.Valid([]byte(input)) {
				continue // a valid prompt would start a run per input
			}
			res := s.Call(context.Background(), name, json.RawMessage(input))
			if res.Text == "" {
				t.Fatalf("%s %q: empty result", name, input)
			}
		}
	})
}

// FuzzSubagentCall feeds arbitrary bytes to the sub-agent tools' input
// parsers, against a manager with one child: every call comes back as a
// Result with a text, never a panic.
func FuzzSubagentCall(f *testing.F) {
	for _, seed := range []string{
		`{}`, `null`, `{"childId":"sa_0"}`, `{"childId":"sa_0","message":"x"}`, `{"scope":"descendants"}`,
		`{"scope":1}`, `{"childId":"sa_0","turn":-1}`, `{"childId":"sa_0","timeoutMs":1}`, `{"reason":[]}`, `{"a":`, "\x00",
	} {
		f.Add(seed)
	}
	eng, err := engine.New(engine.Config{RunsDir: f.TempDir() + "/runs"})
	if err != nil {
		f.Fatal(err)
	}
	m, err := subagent.New(eng, subagent.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() {
		_ = m.Close(context.Background())
		_ = eng.Close(context.Background())
	})
	s := tool.New(eng, tool.Options{Owner: "fuzz", Subagents: m})
	if res := s.Call(context.Background(), tool.SubagentStart, json.RawMessage(`{"prompt":"the one child"}`)); res.IsError {
		f.Fatal(res.Text)
	}
	f.Fuzz(func(t *testing.T, input string) {
		for _, name := range tool.SubagentNames() {
			if name == tool.SubagentStart && strings.Contains(input, "prompt") {
				continue // a valid prompt would start a child per input
			}
			if name == tool.SubagentClose && strings.Contains(input, "sa_") {
				continue // keep the one child alive
			}
			res := s.Call(context.Background(), name, json.RawMessage(input))
			if res.Text == "" {
				t.Fatalf("%s %q: empty result", name, input)
			}
		}
	})
}
