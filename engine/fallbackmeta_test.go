package engine_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/engine"
)

func TestEngine_FallbackMetaIsTheMetaOfAScriptThatHasNone(t *testing.T) {
	eng := newEngine(t, engine.Config{})
	const noMeta = "return await agent('say hi')"
	const withMeta = "export const meta = {name:'own', description:'d'}\nreturn 1"
	fallback := json.RawMessage(`{"name":"fallback","description":"from the file"}`)
	cases := []struct {
		name     string
		req      engine.WorkflowStartRequest
		code     engine.ErrorCode // "" the check passes
		metaName string
		fellBack bool
	}{
		{"a script without meta takes it", engine.WorkflowStartRequest{Script: noMeta, FallbackMeta: fallback}, "", "fallback", true},
		{"a null meta is no meta", engine.WorkflowStartRequest{Script: noMeta, Meta: json.RawMessage("null"), FallbackMeta: fallback}, "", "fallback", true},
		{"the script's meta wins", engine.WorkflowStartRequest{Script: withMeta, FallbackMeta: fallback}, "", "own", false},
		{"the request's meta wins", engine.WorkflowStartRequest{Script: noMeta, Meta: json.RawMessage(`{"name":"asked","description":"d"}`), FallbackMeta: fallback}, "", "asked", false},
		{"no meta anywhere", engine.WorkflowStartRequest{Script: noMeta}, engine.CodeMetaInvalid, "", false},
		{"an invalid fallback", engine.WorkflowStartRequest{Script: noMeta, FallbackMeta: json.RawMessage(`{"description":"no name"}`)}, engine.CodeMetaInvalid, "", true},
		{"a later check fails", engine.WorkflowStartRequest{Script: "await agent('x', { temperature: 1 })", FallbackMeta: fallback}, engine.CodeUnsupportedOption, "", true},
		{"an earlier check fails", engine.WorkflowStartRequest{Script: noMeta, SubagentProvider: "nobody", FallbackMeta: fallback}, engine.CodeInvalidRequest, "", false},
		{"a fallback too big", engine.WorkflowStartRequest{Script: noMeta, FallbackMeta: json.RawMessage(`"` + strings.Repeat("x", 70<<10) + `"`)}, engine.CodeInvalidRequest, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.req.Parent = "p"
			res := eng.Check(c.req)
			if res.ErrorCode != c.code || res.MetaFallback != c.fellBack {
				t.Fatalf("check = %+v, want code %q and MetaFallback %v", res, c.code, c.fellBack)
			}
			if c.code != "" {
				return
			}
			if res.Meta.Name != c.metaName {
				t.Errorf("checked meta %q, want %q", res.Meta.Name, c.metaName)
			}
			out, rec := start(t, eng, c.req)
			if out.StopReason != engine.StopCompleted {
				t.Fatalf("run = %+v", out)
			}
			if m := rec.Events()[0].Meta; m == nil || m.Name != c.metaName {
				t.Errorf("run.start meta %+v, want %q", m, c.metaName)
			}
		})
	}
}

// A run folder keeps the request's fallbackMeta, so a resume that brings
// no script runs under the same meta.
func TestDurable_AResumeKeepsTheFallbackMetaOfTheSavedRequest(t *testing.T) {
	runs := t.TempDir()
	eng := newEngine(t, engine.Config{RunsDir: runs})
	first, _ := start(t, eng, engine.WorkflowStartRequest{Script: "return await agent('say hi')", Parent: "p",
		FallbackMeta: json.RawMessage(`{"name":"from-the-file","description":"d"}`)})
	if first.StopReason != engine.StopCompleted {
		t.Fatalf("first run %+v", first)
	}
	res, rec := start(t, eng, engine.WorkflowStartRequest{ResumeFromRunId: first.RunID, Parent: "p"})
	if res.StopReason != engine.StopCompleted || res.Agents.Replayed != 1 {
		t.Fatalf("resumed run %+v", res)
	}
	if m := rec.Events()[0].Meta; m == nil || m.Name != "from-the-file" {
		t.Errorf("the resumed run's meta %+v, want the saved fallback's", m)
	}
}
