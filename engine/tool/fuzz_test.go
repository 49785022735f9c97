package tool_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/tool"
	"github.com/wfrun/wfrun/internal/eventcheck"
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
	evs := &streams{}
	eng, err := engine.New(engine.Config{Events: evs.record})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() {
		_ = eng.Close(context.Background())
		evs.mu.Lock()
		defer evs.mu.Unlock()
		for id, rec := range evs.runs {
			if err := eventcheck.Check(rec.Events(), eventcheck.Options{RunEvents: true}); err != nil {
				f.Errorf("run %s: %v", id, err)
			}
		}
	})
	s := tool.New(eng, tool.Options{})
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
