package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/engine"
)

func TestRunPrintsTheResultJSONAndExitsZero(t *testing.T) {
	o := wfrun(t, "testdata/hello.js", "--provider", "fake", "--args", `{"who":"Ada"}`)
	o.wantCode(t, exitCompleted)
	res := o.result(t)
	if res.StopReason != engine.StopCompleted || res.AgentsSpawned != 1 || !strings.HasPrefix(res.RunID, "wf_") {
		t.Fatalf("result = %+v", res)
	}
	var value struct{ Answer, Who string }
	if err := json.Unmarshal(res.Value, &value); err != nil || value.Who != "Ada" || value.Answer != "Say hello to Ada" {
		t.Fatalf("value = %s (%v)", res.Value, err)
	}
	if !strings.HasPrefix(o.stdout, "{\n  \"runId\"") {
		t.Errorf("the result is not indented JSON:\n%s", o.stdout)
	}
	if o.stderr != "" {
		t.Errorf("stderr with an explicit provider and no terminal = %q, want nothing", o.stderr)
	}
}

func TestAScriptErrorExitsOneWithScriptErrorAndItsLine(t *testing.T) {
	o := wfrun(t, "testdata/throws.js", "--provider", "fake")
	o.wantCode(t, exitFailed)
	res := o.result(t)
	if res.StopReason != engine.StopError || res.ErrorCode != engine.CodeScriptError || res.ErrorLine != 4 {
		t.Fatalf("result = %+v, want SCRIPT_ERROR on line 4", res)
	}
	if !strings.Contains(res.Error, "boom on purpose") {
		t.Errorf("error %q does not carry the script's message", res.Error)
	}
}

func TestBadInvocationsExitTwoWithAMessageAndNoJSON(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name string
		args []string
		say  string // a fragment of the stderr message
	}{
		{"no arguments", nil, "usage: wfrun [run] SCRIPT.js"},
		{"unknown flag", []string{"testdata/hello.js", "--nope"}, "unknown flag --nope"},
		{"unknown flag before the script", []string{"--temperature", "1", "testdata/hello.js"}, "unknown flag --temperature"},
		{"flag without its value", []string{"testdata/hello.js", "--args"}, "--args needs a value"},
		{"missing script", []string{"--provider", "fake"}, "no script given"},
		{"unreadable script", []string{filepath.Join(dir, "absent.js")}, "cannot read the script"},
		{"unknown command", []string{"frobnicate"}, "the commands are run, check, providers, doctor, agents, workflows, tool, mcp, agent, ralph, resume, retry, continue, runs, show, stop, note, ui, worker and temporal;"},
		{"a typo of a command", []string{"provders"}, "did you mean wfrun providers?"},
		{"two scripts", []string{"testdata/hello.js", "testdata/throws.js"}, "one script at a time"},
		{"args written as a second positional", []string{"testdata/hello.js", `{"who":"x"}`}, "--args '{\"who\":\"x\"}'"},
		{"unreadable args file", []string{"testdata/hello.js", "--args", "@" + filepath.Join(dir, "absent.json")}, "cannot read --args @"},
		{"unreadable meta file", []string{"testdata/hello.js", "--meta", "@" + filepath.Join(dir, "absent.json")}, "cannot read --meta @"},
		{"unreadable request file", []string{"--request", filepath.Join(dir, "absent.json")}, "cannot read --request"},
		{"unreadable rules file", []string{"testdata/hello.js", "--fake-rules", filepath.Join(dir, "absent.json")}, "cannot read --fake-rules"},
		{"missing workflows folder", []string{"testdata/hello.js", "--workflows-dir", filepath.Join(dir, "absent")}, "--workflows-dir"},
		{"events file in a missing folder", []string{"testdata/hello.js", "--events", filepath.Join(dir, "absent", "ev.jsonl")}, "--events: cannot create"},
		{"ralph's events file in a missing folder", []string{"ralph", "Finish", "--events", filepath.Join(dir, "absent", "ev.jsonl")}, "--events: cannot create"},
		{"mcp's events file in a missing folder", []string{"mcp", "--events", filepath.Join(dir, "absent", "ev.jsonl")}, "--events: cannot create"},
		{"duration without a unit", []string{"testdata/hello.js", "--timeout", "90"}, "--timeout: \"90\" is not a duration (a duration needs a unit)"},
		{"negative duration", []string{"testdata/hello.js", "--agent-timeout", "-5s"}, "--agent-timeout: -5s is not positive"},
		{"zero agents", []string{"testdata/hello.js", "--max-agents", "0"}, "--max-agents: \"0\" is not a positive whole number"},
		{"concurrency that is not a number", []string{"testdata/hello.js", "--concurrency", "many"}, "--concurrency: \"many\""},
		{"budget that is not a number", []string{"testdata/hello.js", "--budget-tokens", "1e5"}, "--budget-tokens"},
		{"empty provider", []string{"testdata/hello.js", "--provider", ""}, "--provider is empty"},
		{"two inputs from stdin", []string{"-", "--args", "@-"}, "both read stdin"},
		{"check with --events", []string{"check", "testdata/hello.js", "--events", "-"}, "--events does not apply to check"},
		{"check without a script", []string{"check"}, "no script given"},
		{"providers with an argument", []string{"providers", "fake"}, "providers takes no arguments"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := wfrun(t, tc.args...)
			o.wantCode(t, exitUsage)
			if o.stdout != "" {
				t.Errorf("stdout = %q, want nothing", o.stdout)
			}
			if !strings.Contains(o.stderr, tc.say) {
				t.Errorf("stderr = %q, want it to say %q", o.stderr, tc.say)
			}
		})
	}
}

func TestMalformedContentIsAFailedPreCheckThatExitsOneWithJSON(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	badRules := write("bad.rules.json", `{"rules":[{"match":"(","reply":"x"}]}`)
	badRequest := write("bad.request.json", `{"script":"return 1","parnet":"typo"}`)
	badArgs := write("bad.args.json", `{"topic":`)
	twoRequests := write("two.request.json", `{"script":"return 1"} {"script":"return 2"}`)
	cases := []struct {
		name string
		args []string
		code engine.ErrorCode
		say  string
	}{
		{"args that are not JSON", []string{"testdata/hello.js", "--args", "x"}, engine.CodeInvalidRequest, `--args: not JSON (invalid character 'x'`},
		{"args file that is not JSON", []string{"testdata/hello.js", "--args", "@" + badArgs}, engine.CodeInvalidRequest, "--args @" + badArgs + ": not JSON"},
		{"meta that is not JSON", []string{"testdata/hello.js", "--meta", "{"}, engine.CodeMetaInvalid, "--meta: not JSON"},
		{"meta that differs from the script's", []string{"testdata/hello.js", "--meta", `{"name":"other","description":"d"}`}, engine.CodeMetaInvalid, "differ"},
		{"rules with a bad regexp", []string{"testdata/hello.js", "--fake-rules", badRules}, engine.CodeInvalidRequest, "rule 1"},
		{"request with an unknown field", []string{"--request", badRequest}, engine.CodeInvalidRequest, `unknown field "parnet"`},
		{"request with text after it", []string{"--request", twoRequests}, engine.CodeInvalidRequest, "text after the JSON value"},
		{"unknown provider", []string{"testdata/hello.js", "--provider", "nope"}, engine.CodeInvalidRequest, "nope"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := wfrun(t, tc.args...)
			o.wantCode(t, exitFailed)
			res := o.result(t)
			if res.StopReason != engine.StopError || res.ErrorCode != tc.code || res.AgentsSpawned != 0 {
				t.Fatalf("result = %+v, want %s before any agent", res, tc.code)
			}
			if !strings.Contains(res.Error, tc.say) {
				t.Errorf("error = %q, want it to say %q", res.Error, tc.say)
			}
		})
	}
}

// badScripts lists testdata/bad/*.js with the error code each one's first
// line names ("// CODE: why").
func badScripts(t *testing.T) map[string]engine.ErrorCode {
	t.Helper()
	files, err := filepath.Glob("../../testdata/shared/bad/*.js")
	if err != nil || len(files) == 0 {
		t.Fatalf("no bad scripts (%v)", err)
	}
	out := map[string]engine.ErrorCode{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(src), "\n")
		code, _, ok := strings.Cut(strings.TrimPrefix(first, "// "), ":")
		if !ok {
			t.Fatalf("%s: first line %q does not name an error code", f, first)
		}
		out[f] = engine.ErrorCode(code)
	}
	return out
}

func TestEveryBadScriptFailsWithItsCodeBeforeAnyAgentStarts(t *testing.T) {
	for file, code := range badScripts(t) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			events := filepath.Join(t.TempDir(), "events.jsonl")
			o := wfrun(t, file, "--provider", "fake", "--events", events)
			o.wantCode(t, exitFailed)
			if res := o.result(t); res.ErrorCode != code || res.AgentsSpawned != 0 {
				t.Fatalf("wfrun %s: result = %+v, want %s with no agents", file, res, code)
			}
			data, err := os.ReadFile(events)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(data), `"agent.start"`) {
				t.Errorf("an agent started:\n%s", data)
			}

			c := wfrun(t, "check", file, "--provider", "fake")
			var cr engine.CheckResult
			c.wantCode(t, exitFailed)
			if err := json.Unmarshal([]byte(c.stdout), &cr); err != nil || cr.OK || cr.ErrorCode != code {
				t.Fatalf("wfrun check %s = %s (%v), want ok false with %s", file, c.stdout, err, code)
			}
		})
	}
}

func TestEverySharedScriptCompletesWithTheFakeProvider(t *testing.T) {
	cases := []struct {
		script string
		args   []string
	}{
		{"audit-pipeline.js", []string{"--fake-rules", "../../testdata/shared/audit-pipeline.rules.json"}},
		{"handoff-rounds.js", nil},
		{"judge-panel.js", []string{"--args", `{"decision":"ship it on Friday"}`}},
		{"loop-until-dry.js", nil},
		{"map-reduce.js", nil},
		{"persona-audit.js", []string{"--args", `{"files":["api/users.go","api/admin.go"]}`}},
		{"research-synthesis.js", []string{"--meta", `{"name":"research-synthesis","description":"research then write"}`, "--args", `{"topic":"vector databases"}`}},
		{"research-synthesis.js", []string{"--args", `{"topic":"vector databases"}`}}, // no meta at all
	}
	files, _ := filepath.Glob("../../testdata/shared/*.js")
	covered := map[string]bool{}
	for _, tc := range cases {
		covered[tc.script] = true
		t.Run(tc.script+strings.Join(tc.args, " "), func(t *testing.T) {
			args := append([]string{"../../testdata/shared/" + tc.script, "--events", "-"}, tc.args...)
			o := wfrun(t, args...)
			o.wantCode(t, exitCompleted)
			if res := o.result(t); res.StopReason != engine.StopCompleted || res.AgentsSpawned == 0 {
				t.Fatalf("result = %+v", res)
			}
			readEvents(t, o.stderr)
		})
	}
	for _, f := range files {
		if !covered[filepath.Base(f)] {
			t.Errorf("%s has no case in this test", f)
		}
	}
}

func TestEventsDashWritesJSONLinesToStderrFromRunStartToRunEnd(t *testing.T) {
	o := wfrun(t, "testdata/phased.js", "--provider", "fake", "--events", "-")
	o.wantCode(t, exitCompleted)
	evs := readEvents(t, o.stderr)
	if evs[0].Type != engine.EventRunStart || evs[len(evs)-1].Type != engine.EventRunEnd {
		t.Fatalf("first %s, last %s", evs[0].Type, evs[len(evs)-1].Type)
	}
	starts := 0
	for _, ev := range evs {
		if ev.Type == engine.EventAgentStart {
			starts++
		}
	}
	if starts != 3 {
		t.Errorf("%d agent.start events, want 3", starts)
	}
	if strings.Contains(o.stdout, "run.start") {
		t.Errorf("events leaked onto stdout")
	}
}

func TestEventsFileGetsTheSameStream(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	o := wfrun(t, "testdata/phased.js", "--provider", "fake", "--events", path)
	o.wantCode(t, exitCompleted)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	readEvents(t, string(data))
	if o.stderr != "" {
		t.Errorf("stderr = %q, want nothing", o.stderr)
	}
}

func TestFlagsMayComeBeforeOrAfterTheScript(t *testing.T) {
	for _, args := range [][]string{
		{"--args", `{"who":"Bo"}`, "--provider", "fake", "testdata/hello.js"},
		{"testdata/hello.js", "--args", `{"who":"Bo"}`, "--provider=fake"},
		{"--provider", "fake", "testdata/hello.js", "--args", `{"who":"Bo"}`},
		{"--provider", "fake", "--args", `{"who":"Bo"}`, "--", "testdata/hello.js"},
	} {
		o := wfrun(t, args...)
		o.wantCode(t, exitCompleted)
		if res := o.result(t); !strings.Contains(compact(t, res.Value), `"who":"Bo"`) {
			t.Errorf("wfrun %q: value = %s", args, res.Value)
		}
	}
}

func TestAScriptWithoutMetaIsNamedAfterItsFile(t *testing.T) {
	o := wfrun(t, "testdata/no-meta.js", "--provider", "fake", "--events", "-")
	o.wantCode(t, exitCompleted)
	if !strings.Contains(o.stderr, `wfrun: testdata/no-meta.js has no meta; using {"name":"no-meta","description":"no-meta.js run from the command line"}`) {
		t.Errorf("stderr has no notice about the supplied meta:\n%s", o.stderr)
	}
	evs := readEvents(t, o.stderr)
	if m := evs[0].Meta; m == nil || m.Name != "no-meta" {
		t.Errorf("run.start meta = %+v", m)
	}
}

func TestAScriptWithMetaGetsNoSuppliedMeta(t *testing.T) {
	o := wfrun(t, "testdata/hello.js", "--provider", "fake")
	o.wantCode(t, exitCompleted)
	if strings.Contains(o.stderr, "has no meta") {
		t.Errorf("stderr = %q", o.stderr)
	}
}

func TestProviderNotices(t *testing.T) {
	cases := []struct {
		name    string
		environ map[string]string
		args    []string
		say     string // "" means stderr stays empty
	}{
		{"nothing configured", nil, nil, "wfrun: no provider configured; using the offline fake provider (set OPENAI_API_KEY or pass --provider)\n"},
		{"explicit provider", nil, []string{"--provider", "fake"}, ""},
		{"explicit provider despite the environment", map[string]string{"OPENAI_API_KEY": "sk-test"}, []string{"--provider", "fake"}, ""},
		{"fake rules imply the fake provider", map[string]string{"OPENAI_API_KEY": "sk-test"}, []string{"--fake-rules", "../../testdata/shared/audit-pipeline.rules.json"}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := invoke(t, call{args: append([]string{"testdata/hello.js"}, tc.args...), environ: tc.environ})
			o.wantCode(t, exitCompleted)
			switch {
			case tc.say == "" && o.stderr != "":
				t.Errorf("stderr = %q, want nothing", o.stderr)
			case tc.say != "" && !strings.Contains(o.stderr, tc.say):
				t.Errorf("stderr = %q, want %q", o.stderr, tc.say)
			case tc.say != "" && strings.Count(o.stderr, "\n") != 1:
				t.Errorf("stderr = %q, want one line", o.stderr)
			}
		})
	}
}

func TestOpenAIConfiguredByTheEnvironmentIsTheDefault(t *testing.T) {
	// check runs nothing, so no request leaves the machine.
	o := invoke(t, call{args: []string{"check", "testdata/hello.js"},
		environ: map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "WFRUN_MODEL": "m"}})
	o.wantCode(t, exitCompleted)
	if o.stderr != "" {
		t.Errorf("stderr = %q, want no notice", o.stderr)
	}
	o = invoke(t, call{args: []string{"providers"}, environ: map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "WFRUN_MODEL": "m"}})
	if !strings.Contains(o.stdout, `"default": "openai"`) {
		t.Errorf("providers = %s", o.stdout)
	}
}

func TestOpenAIWithoutAModelSaysWhatToSet(t *testing.T) {
	o := invoke(t, call{args: []string{"testdata/hello.js"}, environ: map[string]string{"OPENAI_API_KEY": "sk-test"}})
	o.wantCode(t, exitFailed)
	res := o.result(t)
	if res.ErrorCode != engine.CodeAgentStart || !strings.Contains(res.Error, "WFRUN_MODEL") {
		t.Fatalf("%+v", res)
	}
}

func TestModelBecomesTheRunsDefaultModel(t *testing.T) {
	o := wfrun(t, "testdata/no-meta.js", "--provider", "fake", "--model", "small-1", "--events", "-")
	o.wantCode(t, exitCompleted)
	evs := readEvents(t, o.stderr)
	if m := evs[0].Meta; m == nil || m.Model != "small-1" {
		t.Fatalf("run.start meta = %+v, want model small-1", m)
	}
	for _, ev := range evs {
		if ev.Type == engine.EventAgentStart && ev.Model != "small-1" {
			t.Errorf("agent.start model = %q, want small-1", ev.Model)
		}
	}
}

func TestModelReplacesTheScriptsOwnMetaModel(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pinned.js")
	src := "export const meta = { name: 'pinned', description: 'sets a model', model: 'big-1' }\nreturn await agent('hi')"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	o := wfrun(t, path, "--provider", "fake", "--model", "small-1", "--events", "-")
	o.wantCode(t, exitCompleted)
	for _, ev := range readEvents(t, o.stderr) {
		if ev.Type == engine.EventAgentStart && ev.Model != "small-1" {
			t.Errorf("agent.start model = %q, want small-1", ev.Model)
		}
	}
}

func TestRequestFileFieldsAreOverriddenByExplicitFlags(t *testing.T) {
	req, _ := json.Marshal(map[string]any{
		"script":           "export const meta = { name: 'req', description: 'from a request' }\nreturn { args }",
		"args":             map[string]string{"from": "request"},
		"subagentProvider": "fake",
		"parent":           "someone",
	})
	path := filepath.Join(t.TempDir(), "request.json")
	if err := os.WriteFile(path, req, 0o644); err != nil {
		t.Fatal(err)
	}
	o := wfrun(t, "--request", path)
	o.wantCode(t, exitCompleted)
	if res := o.result(t); compact(t, res.Value) != `{"args":{"from":"request"}}` {
		t.Errorf("value = %s", res.Value)
	}
	if o.stderr != "" {
		t.Errorf("a request that names its provider got a notice: %q", o.stderr)
	}
	o = wfrun(t, "--request", path, "--args", `{"from":"flag"}`)
	o.wantCode(t, exitCompleted)
	if res := o.result(t); compact(t, res.Value) != `{"args":{"from":"flag"}}` {
		t.Errorf("value = %s", res.Value)
	}
	o = invoke(t, call{args: []string{"--request", "-"}, stdin: string(req)})
	o.wantCode(t, exitCompleted)
}

func TestARequestFileWithAnUnknownFieldListsEveryField(t *testing.T) {
	path := filepath.Join(t.TempDir(), "request.json")
	if err := os.WriteFile(path, []byte(`{"scirpt":"return 1"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	o := wfrun(t, "--request", path)
	o.wantCode(t, exitFailed)
	res := o.result(t)
	for _, field := range []string{"script", "scriptName", "meta", "args", "isolate", "background", "resumeFromRunId", "maxMemoryBytes"} {
		if !strings.Contains(res.Error, field) {
			t.Errorf("the hint lacks %s: %s", field, res.Error)
		}
	}
}

func TestScriptFromStdin(t *testing.T) {
	src, err := os.ReadFile("testdata/hello.js")
	if err != nil {
		t.Fatal(err)
	}
	o := invoke(t, call{args: []string{"-", "--provider", "fake"}, stdin: string(src)})
	o.wantCode(t, exitCompleted)
}

func TestLimitsReachTheRun(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code engine.ErrorCode
	}{
		{"timeout", []string{"testdata/slow.js", "--fake-rules", "testdata/slow.rules.json", "--timeout", "150ms"}, engine.CodeTimeout},
		{"max agents", []string{"testdata/phased.js", "--max-agents", "2"}, engine.CodeAgentCap},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := wfrun(t, append(tc.args, "--provider", "fake")...)
			o.wantCode(t, exitFailed)
			if res := o.result(t); res.ErrorCode != tc.code {
				t.Fatalf("result = %+v, want %s", res, tc.code)
			}
		})
	}
	o := wfrun(t, "testdata/slow.js", "--provider", "fake", "--fake-rules", "testdata/slow.rules.json", "--agent-timeout", "100ms")
	o.wantCode(t, exitCompleted)
	if res := o.result(t); res.Agents.TimedOut != 2 {
		t.Errorf("agents = %+v, want 2 timed out", res.Agents)
	}
}

func TestFirstSignalCancelsTheRunAndStillPrintsTheResult(t *testing.T) {
	stderr := watching(`"seq":2`) // both agents are running
	sigs := make(chan os.Signal, 1)
	done := make(chan outcome, 1)
	go func() {
		done <- invoke(t, call{
			args:    []string{"testdata/slow.js", "--provider", "fake", "--fake-rules", "testdata/slow.rules.json", "--events", "-"},
			stderr:  stderr,
			signals: sigs,
		})
	}()
	<-stderr.seen
	sigs <- os.Interrupt
	o := <-done
	o.wantCode(t, exitInterrupted)
	res := o.result(t)
	if res.StopReason != engine.StopCancelled || !strings.Contains(res.Error, "interrupted by SIGINT") {
		t.Fatalf("result = %+v", res)
	}
	readEvents(t, o.stderr)
}
