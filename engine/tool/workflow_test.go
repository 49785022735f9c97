package tool_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/tool"
)

// call marshals input and calls the tool.
func call(t *testing.T, s *tool.Set, name tool.Name, input any) tool.Result {
	t.Helper()
	raw, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	return s.Call(context.Background(), name, raw)
}

func output(t *testing.T, res tool.Result) tool.Output {
	t.Helper()
	out, ok := res.Structured.(tool.Output)
	if !ok {
		t.Fatalf("structured content is %T, not tool.Output: %+v", res.Structured, res)
	}
	return out
}

func TestWorkflow_SharedScriptsComplete(t *testing.T) {
	scripts, _ := filepath.Glob("../../testdata/shared/*.js")
	if len(scripts) == 0 {
		t.Fatal("no shared scripts")
	}
	for _, path := range scripts {
		name := strings.TrimSuffix(filepath.Base(path), ".js")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			rules, _ := os.ReadFile(strings.TrimSuffix(path, ".js") + ".rules.json")
			s, _ := newSet(t, string(rules), tool.Options{})
			in := map[string]any{"script": string(src)}
			if !strings.Contains(string(src), "export const meta") {
				in["meta"] = map[string]string{"name": name, "description": "run through the workflow tool"}
			}
			switch name {
			case "judge-panel":
				in["args"] = "Ship the new cache on Friday"
			case "persona-audit":
				in["args"] = map[string]any{"files": []string{"api/users.go", "api/admin.go"}}
			}
			res := call(t, s, tool.Workflow, in)
			if res.IsError || !strings.HasPrefix(res.Text, `workflow "`+name+`" completed (`) {
				t.Fatalf("%s did not complete:\n%s", name, res.Text)
			}
			if out := output(t, res); out.StopReason != engine.StopCompleted || out.RunID != res.RunID {
				t.Fatalf("structured %+v", out)
			}
		})
	}
}

func TestWorkflow_BadScriptsAreErrorsWithTheirCodeAndLine(t *testing.T) {
	scripts, _ := filepath.Glob("../../testdata/shared/bad/*.js")
	if len(scripts) == 0 {
		t.Fatal("no bad scripts")
	}
	codeRE := regexp.MustCompile(`^// ([A-Z_]+):`)
	for _, path := range scripts {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, _ := os.ReadFile(path)
			m := codeRE.FindSubmatch(src)
			if m == nil {
				t.Fatalf("%s does not start with // CODE:", path)
			}
			code := string(m[1])
			s, _ := newSet(t, "", tool.Options{})
			res := call(t, s, tool.Workflow, map[string]any{"script": string(src)})
			out := output(t, res)
			if !res.IsError || string(out.ErrorCode) != code {
				t.Fatalf("want an error %s, got %+v:\n%s", code, out, res.Text)
			}
			if out.ErrorLine == 0 || !strings.Contains(res.Text, code+" at line ") {
				t.Fatalf("the text does not name the line:\n%s", res.Text)
			}
			if out.AgentsSpawned != 0 || !strings.Contains(res.Text, "Nothing ran") {
				t.Fatalf("a refused script must start nothing:\n%s", res.Text)
			}
		})
	}
}

func TestWorkflow_NoMetaAnywhereIsMetaInvalid(t *testing.T) {
	s, _ := newSet(t, "", tool.Options{})
	res := call(t, s, tool.Workflow, map[string]any{"script": "return 1"})
	if out := output(t, res); !res.IsError || out.ErrorCode != engine.CodeMetaInvalid {
		t.Fatalf("%+v\n%s", out, res.Text)
	}
}

func TestWorkflow_CompletedTextIsTheHeaderThenTheValue(t *testing.T) {
	s, _ := newSet(t, `{"rules":[{"match":"^hi","reply":"hello","usage":{"inputTokens":10,"outputTokens":5}}]}`, tool.Options{})
	res := call(t, s, tool.Workflow, map[string]any{
		"script": "export const meta = { name: 'greet', description: 'one agent' }\nreturn { said: await agent('hi'), n: args.n }",
		"args":   map[string]int{"n": 2},
	})
	header := regexp.MustCompile(`^workflow "greet" completed \(1 agent, 15 tokens, \d+\.\d s\)\n`)
	if res.IsError || !header.MatchString(res.Text) {
		t.Fatalf("text:\n%s", res.Text)
	}
	if body := header.ReplaceAllString(res.Text, ""); body != "{\n  \"said\": \"hello\",\n  \"n\": 2\n}" {
		t.Fatalf("value text %q", body)
	}
	if out := output(t, res); string(out.Value) != `{"said":"hello","n":2}` || out.ValueCut != nil {
		t.Fatalf("structured %+v", out)
	}
}

func TestWorkflow_ALongValueIsCutWithANoticeNamingTheResource(t *testing.T) {
	s, _ := newSet(t, "", tool.Options{MaxResultChars: 100})
	res := call(t, s, tool.Workflow, map[string]any{
		"script": "export const meta = { name: 'long', description: 'a long value' }\nreturn 'é'.repeat(1000)",
	})
	if res.IsError {
		t.Fatal(res.Text)
	}
	uri := "wfrun://runs/" + res.RunID + "/result"
	if !strings.Contains(res.Text, "it is 1002 characters and this shows the first 100") || !strings.Contains(res.Text, uri) {
		t.Fatalf("no notice naming %s:\n%s", uri, res.Text)
	}
	out := output(t, res)
	if out.Value != nil || out.ValueCut == nil || out.ValueCut.Resource != uri || out.ValueCut.Chars != 1002 {
		t.Fatalf("structured %+v", out)
	}
	full, ok := s.Result(res.RunID)
	if !ok || len([]rune(string(full.Value))) != 1002 {
		t.Fatalf("the full value is not kept: %v %d", ok, len(full.Value))
	}
}

func TestWorkflow_AFailureNamesCodeLineAndTheAgentsThatCompleted(t *testing.T) {
	s, _ := newSet(t, "", tool.Options{})
	script := "export const meta = { name: 'boom', description: 'fails after one agent' }\n" +
		"await agent('first')\n" +
		"\tthrow new Error('the second step broke')\n"
	res := call(t, s, tool.Workflow, map[string]any{"script": script})
	out := output(t, res)
	if !res.IsError || out.ErrorCode != engine.CodeScriptError || out.Value != nil && string(out.Value) != "null" {
		t.Fatalf("%+v", out)
	}
	for _, want := range []string{
		`workflow "boom" failed: SCRIPT_ERROR at line 3, column `,
		"the second step broke",
		"  3 | \tthrow new Error('the second step broke')\n    | \t",
		"1 of 1 agent had completed",
		"returns no value",
	} {
		if !strings.Contains(res.Text, want) {
			t.Fatalf("text lacks %q:\n%s", want, res.Text)
		}
	}
}

func TestWorkflow_CancellingTheCallCancelsTheRunAndListShowsItCancelled(t *testing.T) {
	started := make(chan string, 1)
	s, evs := newSet(t, slowRules, tool.Options{OnEvent: func(ev engine.Event) {
		if ev.Type == engine.EventAgentStart {
			select {
			case started <- ev.RunID:
			default:
			}
		}
	}})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	res := s.Call(ctx, tool.Workflow, json.RawMessage(`{"script":"export const meta = { name: 'slow', description: 'waits' }\nreturn await parallel([() => agent('slow a'), () => agent('slow b')])"}`))
	if !res.IsError || !strings.Contains(res.Text, `workflow "slow" was cancelled: CANCELLED`) {
		t.Fatalf("%s", res.Text)
	}
	// The cancel may interrupt the script between the two agent() calls:
	// every accepted call is counted as cancelled.
	if out := output(t, res); out.StopReason != engine.StopCancelled || out.AgentsSpawned == 0 || out.Agents.Cancelled != out.AgentsSpawned {
		t.Fatalf("%+v", out)
	}
	list := call(t, s, tool.WorkflowList, map[string]any{})
	runs := list.Structured.(tool.RunList).Runs
	if len(runs) != 1 || runs[0].Status != engine.RunCancelled || runs[0].Background {
		t.Fatalf("list %+v", runs)
	}
	// Every child that started ended cancelled. One accepted but not yet
	// started when the cancel came is dropped from the queue: counted as
	// cancelled above, with neither agent.start nor agent.end.
	starts, ends := 0, 0
	for _, ev := range evs.of(res.RunID) {
		switch {
		case ev.Type == engine.EventAgentStart:
			starts++
		case ev.Type == engine.EventAgentEnd && ev.Outcome == "cancelled":
			ends++
		}
	}
	if starts == 0 || ends != starts {
		t.Fatalf("%d children ended cancelled, want one for each of the %d started", ends, starts)
	}
}

func TestWorkflow_BeforeRunSeesTheRequest(t *testing.T) {
	var seen engine.WorkflowStartRequest
	s, _ := newSet(t, "", tool.Options{Owner: "me", BeforeRun: func(r engine.WorkflowStartRequest) { seen = r }})
	call(t, s, tool.Workflow, map[string]any{"script": "export const meta = { name: 'n', description: 'd' }\nreturn 1", "timeoutMs": 5000})
	if !strings.HasPrefix(seen.Script, "export const meta") || seen.Parent != "me" || seen.TimeoutMs != 5000 {
		t.Fatalf("%+v", seen)
	}
}
