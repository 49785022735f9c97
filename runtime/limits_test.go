package runtime_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/internal/testkit/loadbound"
	"github.com/wfrun/wfrun/internal/wferr"
	. "github.com/wfrun/wfrun/runtime"
	"github.com/wfrun/wfrun/sandbox"
)

func TestStall_AwaitingANeverSettlingPromiseEndsPromptly(t *testing.T) {
	timer := loadbound.Start(t)
	out, _ := runScript(t, `await new Promise(() => {}); return 1`)
	wantCode(t, out, wferr.ScriptStalled, "nothing will ever settle")
	if took := timer.Stop(); took.Over(2 * time.Second) {
		t.Fatalf("stall took %v", took)
	}
}

func TestStall_AfterChildrenFinish(t *testing.T) {
	out, _ := runScript(t, `await agent('x'); await new Promise(() => {})`)
	wantCode(t, out, wferr.ScriptStalled, "")
}

func TestTimeout_BusyLoopEndsAtTheDeadline(t *testing.T) {
	out, _ := runScript(t, `while (true) {}`, func(c *Config) { c.Timeout = 100 * time.Millisecond })
	wantCode(t, out, wferr.Timeout, "deadline")
}

func TestTimeout_BusyLoopInsideCatchStillEnds(t *testing.T) {
	out, _ := runScript(t, `for (;;) { try { while (true) {} } catch (e) {} }`, func(c *Config) { c.Timeout = 100 * time.Millisecond })
	wantCode(t, out, wferr.Timeout, "")
}

func TestTimeout_WhileWaitingForChildren(t *testing.T) {
	p := newBlocking()
	out, rec := runScript(t, `return await agent('x')`, withProvider(p), func(c *Config) { c.Timeout = 50 * time.Millisecond })
	wantCode(t, out, wferr.Timeout, "")
	if ends := rec.Of(EventAgentEnd); len(ends) != 1 || ends[0].Outcome != agentapi.StatusCancelled {
		t.Fatalf("agent.end %+v", ends)
	}
}

func TestMaxBusy_AScriptThatComputesPastItEndsWithResourceLimit(t *testing.T) {
	out, _ := runScript(t, `await agent('x'); while (true) {}`, func(c *Config) { c.MaxBusy = 100 * time.Millisecond })
	wantCode(t, out, wferr.ResourceLimit, "without awaiting an agent")
}

func TestRecursion_RunawayRecursionEndsWithAnError(t *testing.T) {
	out, _ := runScript(t, `function f(n) { return f(n + 1) + 1 }; try { f(0) } catch (e) { return 'caught' }`)
	wantCode(t, out, wferr.ResourceLimit, "stack")
}

func TestPanic_ProviderPanicFailsOnlyThatRun(t *testing.T) {
	p := &funcProvider{name: "boom", caps: agentapi.All(), run: func(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
		panic("provider bug")
	}}
	out, rec := runScript(t, `return await agent('x')`, withProvider(p))
	wantCode(t, out, wferr.AgentResult, "panicked")
	if len(rec.Of(EventAgentEnd)) != 1 {
		t.Fatal("the panicking child has no agent.end")
	}
	out, _ = runScript(t, `return await agent('still works')`)
	wantValue(t, out, `"still works"`)
}

func TestPanic_HostCallbackPanicFailsOnlyThatRun(t *testing.T) {
	out, _ := runScript(t, `return await workflow('x')`, func(c *Config) {
		c.LoadWorkflow = func(string) (*sandbox.Script, error) { panic("loader bug") }
	})
	wantCode(t, out, wferr.Internal, "loader bug")
}

func TestProvider_ErrorIsAgentStart(t *testing.T) {
	p := &funcProvider{name: "nokey", caps: agentapi.All(), run: func(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
		return agentapi.Result{}, errString("OPENAI_API_KEY is not set")
	}}
	out, _ := runScript(t, `const r = await agent('x'); return r`, withProvider(p))
	wantCode(t, out, wferr.AgentStart, "OPENAI_API_KEY")
}

func TestProvider_UnknownStatusIsAgentResult(t *testing.T) {
	p := &funcProvider{name: "weird", caps: agentapi.All(), run: func(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
		return agentapi.Result{Status: "done"}, nil
	}}
	out, _ := runScript(t, `return await agent('x')`, withProvider(p))
	wantCode(t, out, wferr.AgentResult, `status "done"`)
}

type errString string

func (e errString) Error() string { return string(e) }

func TestResult_ValuesFollowJSONStringify(t *testing.T) {
	cases := []struct{ src, want string }{
		{`return undefined`, `null`},
		{``, `null`},
		{`return {a: undefined, b: [undefined, () => 1], d: new Date(0)}`, `{"b":[null,null],"d":"1970-01-01T00:00:00.000Z"}`},
		{`return {toJSON() { return 'custom' }}`, `"custom"`},
		{`return 'text'`, `"text"`},
	}
	for _, c := range cases {
		out, _ := runScript(t, c.src)
		wantValue(t, out, c.want)
	}
}

func TestResult_CycleOrBigIntIsUnserializable(t *testing.T) {
	for _, src := range []string{`const a = {}; a.self = a; return a`, `return {n: 10n}`} {
		out, _ := runScript(t, src)
		wantCode(t, out, wferr.ResultUnserializable, "")
	}
}

func TestScriptError_UncaughtThrowHasMessageAndLine(t *testing.T) {
	out, _ := runScript(t, "const x = 1\n\nthrow new Error('boom')\n")
	wantCode(t, out, wferr.ScriptError, "boom")
	if out.Err.Line != 3 {
		t.Fatalf("line %d, want 3 (%v)", out.Err.Line, out.Err)
	}
}

func TestWorkflow_NestedRunsInlineAndSharesTheCounter(t *testing.T) {
	inner := mustParse(t, `return {got: args, r: await agent('inner ' + args.x)}`)
	out, _ := runScript(t, `const a = await agent('outer'); const w = await workflow('inner', {x: 1}); return {a, w}`,
		func(c *Config) {
			c.LoadWorkflow = func(name string) (*sandbox.Script, error) { return inner, nil }
		})
	wantValue(t, out, `{"a":"outer","w":{"got":{"x":1},"r":"inner 1"}}`)
	if out.AgentsSpawned != 2 {
		t.Fatalf("spawned %d", out.AgentsSpawned)
	}
}

func TestWorkflow_NestingTwiceIsFatal(t *testing.T) {
	inner := mustParse(t, `try { await workflow('again') } catch (e) {} return 1`)
	out, _ := runScript(t, `return await workflow('inner')`, func(c *Config) {
		c.LoadWorkflow = func(name string) (*sandbox.Script, error) { return inner, nil }
	})
	wantCode(t, out, wferr.Nesting, "one level")
}

func TestWorkflow_LoaderErrorsKeepTheirCodeThroughWrapping(t *testing.T) {
	out, _ := runScript(t, `return await workflow('broken')`, func(c *Config) {
		c.LoadWorkflow = func(name string) (*sandbox.Script, error) {
			return nil, fmt.Errorf("loading %s: %w", name, wferr.At(wferr.ScriptParse, 3, 7, "TypeScript is not supported"))
		}
	})
	wantCode(t, out, wferr.ScriptParse, "TypeScript")
	if out.Err.Line != 3 || out.Err.Column != 7 {
		t.Fatalf("position %d:%d, want 3:7", out.Err.Line, out.Err.Column)
	}
}

func TestLog_LongMessagesAreCutOnACharacterBoundary(t *testing.T) {
	// 'é' is two bytes: a cut at an even byte count would split one.
	_, rec := runScript(t, "log('x' + 'é'.repeat(40000))")
	logs := rec.Of(EventLog)
	if len(logs) != 1 {
		t.Fatalf("%d log events", len(logs))
	}
	msg := logs[0].Message
	if !utf8.ValidString(msg) {
		t.Fatalf("the cut log message is not valid UTF-8: ...%q", msg[len(msg)-40:])
	}
	if !strings.Contains(msg, "cut at 64 KiB") || len(msg) > 64<<10+64 {
		t.Fatalf("message of %d bytes without the cut note", len(msg))
	}
}

func TestLog_ConsoleAndLogEmitEvents(t *testing.T) {
	_, rec := runScript(t, `log('a', 1, {b: 2}); console.warn('w'); console.log([1])`)
	logs := rec.Of(EventLog)
	want := []string{`a 1 {"b":2}`, `w`, `[1]`}
	if len(logs) != len(want) {
		t.Fatalf("logs %+v", logs)
	}
	for i, w := range want {
		if logs[i].Message != w {
			t.Fatalf("log %d = %q, want %q", i, logs[i].Message, w)
		}
	}
}

func TestArgs_AreVerbatimAndUndefinedWhenAbsent(t *testing.T) {
	out, _ := runScript(t, `return [typeof args, args?.topic]`)
	wantValue(t, out, `["undefined", null]`)
	out, _ = runScript(t, `return args`, func(c *Config) { c.Args = []byte(`{"topic":"x","n":[1,2]}`) })
	wantValue(t, out, `{"topic":"x","n":[1,2]}`)
}

func TestDeadline_ReachesEveryStepThatRunsScriptCode(t *testing.T) {
	cases := []struct{ name, src string }{
		{"toJSON of the value", `return { toJSON() { while (true) {} } }`},
		{"a getter in the value", `return { a: 1, get b() { while (true) {} } }`},
		{"a nested toJSON", `return [1, { x: { toJSON() { for (;;) {} } } }]`},
		{"a thenable returned by the body", `return { then(resolve) { while (true) {} } }`},
		{"a thenable resolved after agents", `await agent('x'); return { then(r) { for (;;) {} } }`},
		{"the message getter of a thrown object", `throw { name: 'E', get message() { while (true) {} } }`},
		{"the name getter of a rejection", `await agent('x'); throw { get name() { while (true) {} }, message: 'm' }`},
		{"toJSON of a thrown plain object", `throw { toJSON() { while (true) {} } }`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			timer := loadbound.Start(t)
			out, _ := runScript(t, c.src, func(cfg *Config) { cfg.Timeout = 200 * time.Millisecond })
			wantCode(t, out, wferr.Timeout, "deadline")
			if took := timer.Stop(); took.Over(5 * time.Second) {
				t.Fatalf("the run took %v past a 200ms deadline", took)
			}
		})
	}
}

func TestCancel_ReachesTheExportOfTheValue(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() { time.Sleep(100 * time.Millisecond); cancel(CancelledError("enough")) }()
	out, _ := run(t, harness{ctx: ctx}, `return { toJSON() { while (true) {} } }`)
	wantCode(t, out, wferr.Cancelled, "enough")
}

func TestLog_AFloodIsCappedAndTheDropIsSaid(t *testing.T) {
	_, rec := runScript(t, `for (let i = 0; i < 50000; i++) log('line ' + i); return 1`)
	logs := rec.Of(EventLog)
	if len(logs) != MaxLogEvents+1 {
		t.Fatalf("%d log events, want %d and the note", len(logs), MaxLogEvents+1)
	}
	if last := logs[len(logs)-1].Message; !strings.Contains(last, "40000 more log messages were dropped") {
		t.Fatalf("last log = %q", last)
	}
}
