package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wfrun/wfrun/internal/testkit/leaktest"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/enginetest"
	"github.com/wfrun/wfrun/runtime/eventcheck"
)

func TestMain(m *testing.M) {
	engine.Init() // isolated runs and sandboxed tools re-execute this test binary
	leaktest.VerifyTestMain(m, leaktest.StateDir())
}

const trivial = `export const meta = { name: 'trivial', description: 'one agent' }
return { answer: await agent('say hi') }`

func newEngine(t *testing.T, cfg engine.Config) *engine.Engine {
	t.Helper()
	return enginetest.New(t, cfg)
}

// start runs req to the end, checking the event-stream invariants.
func start(t *testing.T, eng *engine.Engine, req engine.WorkflowStartRequest) (engine.WorkflowResult, *eventcheck.Recorder) {
	t.Helper()
	return enginetest.Run(t, eng, req)
}

func TestEngine_ZeroConfigRunsAScriptWithTheFakeProvider(t *testing.T) {
	eng := newEngine(t, engine.Config{})
	res, rec := start(t, eng, engine.WorkflowStartRequest{Script: trivial})
	if res.StopReason != engine.StopCompleted || string(res.Value) != `{"answer":"say hi"}` {
		t.Fatalf("result %+v value %s", res, res.Value)
	}
	if !regexp.MustCompile(`^wf_[0-9a-f]{16}$`).MatchString(res.RunID) {
		t.Fatalf("run id %q", res.RunID)
	}
	if res.AgentsSpawned != 1 || res.Agents.Completed != 1 || res.Usage.InputTokens == 0 {
		t.Fatalf("accounting %+v", res)
	}
	evs := rec.Events()
	if evs[0].Meta == nil || evs[0].Meta.Name != "trivial" {
		t.Fatalf("run.start %+v", evs[0])
	}
	end, _ := json.Marshal(evs[len(evs)-1])
	if strings.Contains(string(end), `"value"`) || !strings.Contains(string(end), `"stopReason":"completed"`) {
		t.Fatalf("run.end %s", end)
	}
}

func TestEngine_ResultJSONHasTheDesignedShape(t *testing.T) {
	eng := newEngine(t, engine.Config{})
	res, _ := start(t, eng, engine.WorkflowStartRequest{Script: trivial})
	raw, _ := json.Marshal(res)
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	for _, k := range []string{"runId", "value", "stopReason", "agentsSpawned", "agents", "usage", "durationMs"} {
		if _, ok := m[k]; !ok {
			t.Errorf("result JSON lacks %q: %s", k, raw)
		}
	}
	if _, ok := m["error"]; ok {
		t.Errorf("completed result has error: %s", raw)
	}
	agents := m["agents"].(map[string]any)
	for _, k := range []string{"completed", "failed", "timedOut", "cancelled", "replayed"} {
		if _, ok := agents[k]; !ok {
			t.Errorf("agents lacks %q", k)
		}
	}
}

func TestEngine_PreChecksFailInStartBeforeAnyJavaScript(t *testing.T) {
	var events []engine.Event
	var mu sync.Mutex
	eng := newEngine(t, engine.Config{Events: func(ev engine.Event) { mu.Lock(); events = append(events, ev); mu.Unlock() }})
	cases := []struct {
		name string
		req  engine.WorkflowStartRequest
		code engine.ErrorCode
	}{
		{"no parent", engine.WorkflowStartRequest{Script: trivial}, engine.CodeInvalidRequest},
		{"no script", engine.WorkflowStartRequest{Parent: "p"}, engine.CodeInvalidRequest},
		{"unknown provider", engine.WorkflowStartRequest{Script: trivial, Parent: "p", SubagentProvider: "nope"}, engine.CodeInvalidRequest},
		{"bad args", engine.WorkflowStartRequest{Script: trivial, Parent: "p", Args: json.RawMessage(`{x`)}, engine.CodeInvalidRequest},
		{"negative cap", engine.WorkflowStartRequest{Script: trivial, Parent: "p", MaxTotalAgents: -1}, engine.CodeInvalidRequest},
		{"parse error", engine.WorkflowStartRequest{Script: "export const meta = {name:'a', description:'b'}\nconst x = ;", Parent: "p"}, engine.CodeScriptParse},
		{"no meta", engine.WorkflowStartRequest{Script: "return 1", Parent: "p"}, engine.CodeMetaInvalid},
		{"meta getter never runs", engine.WorkflowStartRequest{Script: "export const meta = { get name() { while (true) {} }, description: 'x' }\nreturn 1", Parent: "p"}, engine.CodeMetaInvalid},
		{"meta differs", engine.WorkflowStartRequest{Script: trivial, Parent: "p", Meta: json.RawMessage(`{"name":"other","description":"one agent"}`)}, engine.CodeMetaInvalid},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			run, err := eng.Start(context.Background(), c.req)
			if err == nil {
				run.Wait()
				t.Fatalf("Start succeeded")
			}
			if run != nil {
				t.Fatal("a failed Start returned a run")
			}
			if engine.CodeOf(err) != c.code {
				t.Fatalf("code %s (%v), want %s", engine.CodeOf(err), err, c.code)
			}
			var e *engine.Error
			if !errors.As(err, &e) || e.Message == "" {
				t.Fatalf("not an *engine.Error with a message: %v", err)
			}
			res := engine.FailedResult("wf_x", err)
			if res.StopReason != engine.StopError || res.AgentsSpawned != 0 || res.ErrorCode != c.code || string(res.Value) != "null" {
				t.Fatalf("rendered %+v", res)
			}
		})
	}
	mu.Lock()
	defer mu.Unlock()
	if len(events) != 0 {
		t.Fatalf("failed pre-checks emitted events: %+v", events)
	}
}

func TestEngine_MetaAsDataAndInTheScriptAgree(t *testing.T) {
	eng := newEngine(t, engine.Config{})
	res, _ := start(t, eng, engine.WorkflowStartRequest{Script: trivial,
		Meta: json.RawMessage(`{"description":"one agent","name":"trivial"}`)})
	if res.StopReason != engine.StopCompleted {
		t.Fatalf("%+v", res)
	}
	res, _ = start(t, eng, engine.WorkflowStartRequest{Script: `return args.n + 1`, Args: json.RawMessage(`{"n":41}`),
		Meta: json.RawMessage(`{"name":"dsh","description":"meta as data","author":"x"}`)})
	if string(res.Value) != "42" || len(res.Warnings) != 1 {
		t.Fatalf("%+v %s", res, res.Value)
	}
}

func TestEngine_CancelIsIdempotentAndWaitReportsCancelled(t *testing.T) {
	rules, _ := fake.Parse([]byte(`{"rules":[{"match":"^","delayMs":10000}]}`))
	eng := newEngine(t, engine.Config{FakeRules: rules})
	rec := &eventcheck.Recorder{}
	started := make(chan struct{}, 4)
	run, err := eng.Start(context.Background(), engine.WorkflowStartRequest{Script: trivial, Parent: "p",
		OnEvent: func(ev engine.Event) {
			rec.Record(ev)
			if ev.Type == engine.EventAgentStart {
				started <- struct{}{}
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	run.Cancel("enough")
	run.Cancel("again")
	res := run.Wait()
	if res.StopReason != engine.StopCancelled || res.ErrorCode != engine.CodeCancelled || !strings.Contains(res.Error, "enough") {
		t.Fatalf("%+v", res)
	}
	if res.Agents.Cancelled != 1 {
		t.Fatalf("counts %+v", res.Agents)
	}
	if err := eventcheck.Check(rec.Events(), eventcheck.Options{RunEvents: true}); err != nil {
		t.Fatal(err)
	}
	if again := run.Wait(); again.RunID != res.RunID {
		t.Fatal("second Wait differs")
	}
}

func TestEngine_ContextCancellationCancelsTheRun(t *testing.T) {
	rules, _ := fake.Parse([]byte(`{"rules":[{"match":"^","delayMs":10000}]}`))
	eng := newEngine(t, engine.Config{FakeRules: rules})
	ctx, cancel := context.WithCancel(context.Background())
	run, err := eng.Start(ctx, engine.WorkflowStartRequest{Script: trivial, Parent: "p"})
	if err != nil {
		t.Fatal(err)
	}
	time.AfterFunc(20*time.Millisecond, cancel)
	if res := run.Wait(); res.StopReason != engine.StopCancelled {
		t.Fatalf("%+v", res)
	}
}

func TestEngine_TwoEnginesDoNotShareState(t *testing.T) {
	r1, _ := fake.Parse([]byte(`{"rules":[{"match":"^","reply":"from one"}]}`))
	r2, _ := fake.Parse([]byte(`{"rules":[{"match":"^","reply":"from two"}]}`))
	e1 := newEngine(t, engine.Config{FakeRules: r1, MaxTotalAgents: 5})
	e2 := newEngine(t, engine.Config{FakeRules: r2})
	var wg sync.WaitGroup
	results := make([]engine.WorkflowResult, 2)
	for i, eng := range []*engine.Engine{e1, e2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = eng.Run(context.Background(), engine.WorkflowStartRequest{Script: trivial, Parent: "p"})
		}()
	}
	wg.Wait()
	if string(results[0].Value) != `{"answer":"from one"}` || string(results[1].Value) != `{"answer":"from two"}` {
		t.Fatalf("values %s %s", results[0].Value, results[1].Value)
	}
	capped := e1.Run(context.Background(), engine.WorkflowStartRequest{Parent: "p",
		Script: "export const meta = {name:'n', description:'d'}\nfor (let i = 0; i < 6; i++) await agent('x' + i)"})
	if capped.ErrorCode != engine.CodeAgentCap {
		t.Fatalf("engine one's cap not applied: %+v", capped)
	}
	free := e2.Run(context.Background(), engine.WorkflowStartRequest{Parent: "p",
		Script: "export const meta = {name:'n', description:'d'}\nfor (let i = 0; i < 6; i++) await agent('x' + i)"})
	if free.StopReason != engine.StopCompleted {
		t.Fatalf("engine two got engine one's cap: %+v", free)
	}
}

func TestEngine_RequestLowersButNeverRaisesTheAgentCeiling(t *testing.T) {
	eng := newEngine(t, engine.Config{MaxTotalAgents: 3})
	script := "export const meta = {name:'n', description:'d'}\nfor (let i = 0; i < 5; i++) await agent('x' + i)"
	res, _ := start(t, eng, engine.WorkflowStartRequest{Script: script, MaxTotalAgents: 100})
	if res.ErrorCode != engine.CodeAgentCap || res.AgentsSpawned != 3 {
		t.Fatalf("%+v", res)
	}
	res, _ = start(t, eng, engine.WorkflowStartRequest{Script: script, MaxTotalAgents: 2})
	if res.ErrorCode != engine.CodeAgentCap || res.AgentsSpawned != 2 {
		t.Fatalf("%+v", res)
	}
}

type panicky struct{}

func (panicky) Name() string                        { return "panicky" }
func (panicky) Capabilities() agentapi.Capabilities { return agentapi.All() }
func (panicky) Run(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
	if strings.Contains(req.Prompt, "explode") {
		panic("boom")
	}
	select {
	case <-time.After(50 * time.Millisecond):
	case <-ctx.Done():
	}
	return agentapi.Result{Status: agentapi.StatusCompleted, Text: "fine"}, nil
}

func TestEngine_APanicFailsOnlyItsRun(t *testing.T) {
	eng := newEngine(t, engine.Config{Providers: []agentapi.Provider{panicky{}}, DefaultProvider: "panicky"})
	calm, err := eng.Start(context.Background(), engine.WorkflowStartRequest{Script: trivial, Parent: "p"})
	if err != nil {
		t.Fatal(err)
	}
	bad := eng.Run(context.Background(), engine.WorkflowStartRequest{Parent: "p",
		Script: "export const meta = {name:'n', description:'d'}\nreturn await agent('explode')"})
	if bad.ErrorCode != engine.CodeAgentResult {
		t.Fatalf("%+v", bad)
	}
	if res := calm.Wait(); res.StopReason != engine.StopCompleted {
		t.Fatalf("the other run was hurt: %+v", res)
	}
}

func TestEngine_SharedScriptsComplete(t *testing.T) {
	rules, err := fake.Load("../testdata/shared/audit-pipeline.rules.json")
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("../testdata/shared/*.js")
	if len(files) < 5 {
		t.Fatalf("found %d scripts", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			cfg := engine.Config{}
			if strings.Contains(f, "audit-pipeline") {
				cfg.FakeRules = rules
			}
			eng := newEngine(t, cfg)
			src, _ := os.ReadFile(f)
			req := engine.WorkflowStartRequest{Script: string(src), ScriptName: filepath.Base(f),
				Args: json.RawMessage(`{"topic":"vector databases","decision":"adopt Go 1.26","files":["api/users.go","api/admin.go"]}`)}
			if !strings.Contains(string(src), "export const meta") {
				req.Meta = json.RawMessage(`{"name":"` + strings.TrimSuffix(filepath.Base(f), ".js") + `","description":"from the request"}`)
			}
			res, _ := start(t, eng, req)
			if res.StopReason != engine.StopCompleted {
				t.Fatalf("%s: %+v", f, res)
			}
			if res.AgentsSpawned == 0 {
				t.Fatalf("%s spawned no agents", f)
			}
		})
	}
}

func TestEngine_AuditPipelineFollowsItsRules(t *testing.T) {
	rules, _ := fake.Load("../testdata/shared/audit-pipeline.rules.json")
	eng := newEngine(t, engine.Config{FakeRules: rules})
	src, _ := os.ReadFile("../testdata/shared/audit-pipeline.js")
	res, _ := start(t, eng, engine.WorkflowStartRequest{Script: string(src)})
	want := `{"files":3,"confirmed":[{"title":"string-built SQL in GetUser","line":42,"severity":"high"}],"dropped":1}`
	if string(res.Value) != want {
		t.Fatalf("value %s\nwant  %s", res.Value, want)
	}
	if res.Agents.Failed != 1 || res.AgentsSpawned != 5 {
		t.Fatalf("%+v", res)
	}
}

func TestEngine_BadScriptsFailBeforeAnyAgentStarts(t *testing.T) {
	files, _ := filepath.Glob("../testdata/shared/bad/*.js")
	if len(files) < 4 {
		t.Fatalf("found %d", len(files))
	}
	eng := newEngine(t, engine.Config{})
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, _ := os.ReadFile(f)
			first := strings.SplitN(string(src), "\n", 2)[0]
			want := engine.ErrorCode(regexp.MustCompile(`[A-Z_]{5,}`).FindString(first))
			res, rec := start(t, eng, engine.WorkflowStartRequest{Script: string(src), ScriptName: filepath.Base(f)})
			if res.ErrorCode != want {
				t.Fatalf("code %s (%s), want %s", res.ErrorCode, res.Error, want)
			}
			if res.AgentsSpawned != 0 || len(rec.Of(engine.EventAgentStart)) != 0 {
				t.Fatalf("an agent started: %+v", res)
			}
		})
	}
}

func TestEngine_WhatAWorkflowLacksIsRefusedBeforeAnyAgentIsPaidFor(t *testing.T) {
	eng := newEngine(t, engine.Config{})
	script := "export const meta = {name:'n', description:'d'}\nconst a = await agent('first')\nconst stamp = Date.now()\nsetTimeout(() => 1, 10)\nreturn [a, stamp]"
	check := eng.Check(engine.WorkflowStartRequest{Script: script, Parent: "cli"})
	if check.OK || check.ErrorCode != engine.CodeScriptError || check.ErrorLine != 3 || check.ErrorColumn != 15 ||
		!strings.Contains(check.Error, "pass the time in args") || !strings.Contains(check.Error, "setTimeout() at line 4, column 1") {
		t.Fatalf("check %+v", check)
	}
	res := eng.Run(context.Background(), engine.WorkflowStartRequest{Script: script, Parent: "cli"})
	if res.StopReason != engine.StopError || res.AgentsSpawned != 0 || res.ErrorCode != engine.CodeScriptError {
		t.Fatalf("run %+v, want it refused before any agent", res)
	}
}

func TestEngine_CheckExecutesNothing(t *testing.T) {
	eng := newEngine(t, engine.Config{})
	ok := eng.Check(engine.WorkflowStartRequest{Script: "export const meta = {name:'n', description:'d', author:'me'}\nwhile(true){}", Parent: "cli"})
	if !ok.OK || ok.Meta.Name != "n" || len(ok.Warnings) != 1 {
		t.Fatalf("%+v", ok)
	}
	bad := eng.Check(engine.WorkflowStartRequest{Script: "export const meta = {name:'n', description:'d'}\nconst n: number = 1", Parent: "cli"})
	if bad.OK || bad.ErrorCode != engine.CodeScriptParse || bad.ErrorLine != 2 {
		t.Fatalf("%+v", bad)
	}
}

func TestEngine_WorkflowsDirResolvesByFileAndByMetaName(t *testing.T) {
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "summarise.js"), []byte("export const meta = {name:'summarise', description:'d'}\nreturn 'sum:' + await agent('summarise ' + args.doc)"), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "other-file.js"), []byte("export const meta = {name:'by-meta', description:'d'}\nreturn 'meta ok'"), 0o644)
	eng := newEngine(t, engine.Config{WorkflowsDir: dir})
	res, _ := start(t, eng, engine.WorkflowStartRequest{
		Script: "export const meta = {name:'outer', description:'d'}\nreturn [await workflow('summarise', {doc: 'a.md'}), await workflow('by-meta')]"})
	if string(res.Value) != `["sum:summarise a.md","meta ok"]` {
		t.Fatalf("%+v %s", res, res.Value)
	}
	res, _ = start(t, eng, engine.WorkflowStartRequest{Script: "export const meta = {name:'outer', description:'d'}\nreturn await workflow('../etc/passwd')"})
	if res.ErrorCode != engine.CodeInvalidArgument {
		t.Fatalf("%+v", res)
	}
}

func TestEngine_LiteralAgentOptionsAreCheckedBeforeRunning(t *testing.T) {
	noCaps := &capless{}
	eng := newEngine(t, engine.Config{Providers: []agentapi.Provider{noCaps}})
	cases := []struct {
		name, script, provider string
		code                   engine.ErrorCode
		line, col              int
	}{
		{"unknown key", "export const meta = {name:'n', description:'d'}\nlog('first')\nawait agent('x', { label: 'a', temperature: 0.9 })", "", engine.CodeUnsupportedOption, 3, 32},
		{"object form unknown key", "export const meta = {name:'n', description:'d'}\nawait agent({ prompt: 'x', top_p: 1 })", "", engine.CodeUnsupportedOption, 2, 28},
		{"prompt in the text form", "export const meta = {name:'n', description:'d'}\nawait agent('x', { prompt: 'y' })", "", engine.CodeUnsupportedOption, 2, 20},
		{"capability", "export const meta = {name:'n', description:'d'}\nawait agent('x', { schema: {type: 'object'} })", "capless", engine.CodeUnsupportedOption, 2, 20},
		{"shadowed agent is not checked", "export const meta = {name:'n', description:'d'}\nconst agent = (p, o) => o.temperature\nreturn agent('x', { temperature: 1 })", "", "", 0, 0},
		{"known keys pass", "export const meta = {name:'n', description:'d'}\nconst model = undefined\nreturn await agent('x', { label: 'l', model, ...{} })", "", "", 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := eng.Check(engine.WorkflowStartRequest{Script: c.script, Parent: "p", SubagentProvider: c.provider})
			if res.ErrorCode != c.code || res.ErrorLine != c.line || res.ErrorColumn != c.col {
				t.Fatalf("check = %+v, want %s at %d:%d", res, c.code, c.line, c.col)
			}
		})
	}
}

type capless struct{}

func (capless) Name() string                        { return "capless" }
func (capless) Capabilities() agentapi.Capabilities { return agentapi.Capabilities{} }
func (capless) Run(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
	return agentapi.Result{Status: agentapi.StatusCompleted, Text: "ok"}, nil
}

func TestEngine_ResultIsFalseUntilTheRunSettles(t *testing.T) {
	rules, _ := fake.Parse([]byte(`{"rules":[{"match":"^","delayMs":10000}]}`))
	eng := newEngine(t, engine.Config{FakeRules: rules})
	run, err := eng.Start(context.Background(), engine.WorkflowStartRequest{Script: trivial, Parent: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := run.Result(); ok {
		t.Fatal("Result reports a settled run while its agent is still running")
	}
	run.Cancel("done looking")
	<-run.Done()
	res, ok := run.Result()
	if !ok || res.RunID != run.ID() || res.StopReason != engine.StopCancelled || res.RunID != run.Wait().RunID {
		t.Fatalf("Result = %+v, %v", res, ok)
	}
}

func TestEngine_SavedWorkflowFailingItsChecksReportsItsOwnError(t *testing.T) {
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "typed.js"), []byte("export const meta = {name:'typed', description:'d'}\n\nconst n: number = 1"), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "nameless.js"), []byte("export const meta = {description: 'no name'}\nreturn 1"), 0o644)
	eng := newEngine(t, engine.Config{WorkflowsDir: dir})
	cases := []struct {
		name string
		code engine.ErrorCode
		line int
	}{
		{"typed", engine.CodeScriptParse, 3},
		{"nameless", engine.CodeMetaInvalid, 2}, // a missing field has no position: the workflow() call has
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, _ := start(t, eng, engine.WorkflowStartRequest{
				Script: "export const meta = {name:'outer', description:'d'}\nreturn await workflow('" + c.name + "')"})
			if res.ErrorCode != c.code || res.ErrorLine != c.line {
				t.Fatalf("%s at line %d (%s), want %s at line %d", res.ErrorCode, res.ErrorLine, res.Error, c.code, c.line)
			}
			if !strings.Contains(res.Error, c.name+".js") {
				t.Fatalf("the error does not name the saved file: %s", res.Error)
			}
		})
	}
}
