package runtime_test

import (
	"context"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/internal/wferr"
	"github.com/wfrun/wfrun/meta"
	. "github.com/wfrun/wfrun/runtime"
)

func TestAgent_TextFormReturnsFinalText(t *testing.T) {
	out, rec := runScript(t, `return await agent('say hi')`)
	wantValue(t, out, `"say hi"`)
	if out.AgentsSpawned != 1 || out.Agents.Completed != 1 {
		t.Fatalf("spawned %d, counts %+v", out.AgentsSpawned, out.Agents)
	}
	if len(rec.Of(EventAgentStart)) != 1 || len(rec.Of(EventAgentEnd)) != 1 {
		t.Fatalf("events: %+v", rec.Events())
	}
}

func TestAgent_SchemaCallReturnsValidatedObject(t *testing.T) {
	out, _ := runScript(t, `const r = await agent('rule', {schema: {type:'object', properties:{ok:{type:'boolean'}, n:{type:'integer', minimum: 3}}, required:['ok','n']}})
return r`)
	wantValue(t, out, `{"ok":false,"n":3}`)
}

func TestAgent_ObjectFormReturnsEnvelope(t *testing.T) {
	out, _ := runScript(t, `const r = await agent({prompt: 'research X', description: 'Research'})
return {result: r.result, status: r.status, label: r.label, id: typeof r.agentId, usage: r.usage.inputTokens > 0}`)
	wantValue(t, out, `{"result":"research X","status":"completed","label":"Research","id":"string","usage":true}`)
}

func TestAgent_FirstArgumentOfAnotherKindNamesBothForms(t *testing.T) {
	for _, arg := range []string{`42`, `['a']`, `null`, ``, `() => 'x'`, `new String('x')`, `{description: 'no prompt'}`} {
		t.Run(arg, func(t *testing.T) {
			out, _ := runScript(t, `return await agent(`+arg+`)`)
			wantCode(t, out, wferr.InvalidArgument, "agent(prompt, options)")
			if out.AgentsSpawned != 0 {
				t.Fatalf("spawned %d", out.AgentsSpawned)
			}
		})
	}
}

func TestAgent_FailedChildIsNullAndRunContinues(t *testing.T) {
	rules := withRules(t, `{"rules":[{"match":"^bad","fail":"model refused"}]}`)
	out, rec := runScript(t, `
const a = await agent('bad task')
const b = await agent({prompt: 'bad again'})
const c = await agent('good task')
return {a, b: {result: b.result, status: b.status, error: b.error, failure: b.failure}, c}`, rules)
	wantValue(t, out, `{"a":null,"b":{"result":null,"status":"failed","error":"model refused","failure":"task_failed"},"c":"good task"}`)
	if out.Agents.Failed != 2 || out.Agents.Completed != 1 {
		t.Fatalf("counts %+v", out.Agents)
	}
	ends := rec.Of(EventAgentEnd)
	if ends[0].Outcome != agentapi.StatusFailed || ends[0].Error != "model refused" {
		t.Fatalf("agent.end %+v", ends[0])
	}
}

func TestAgent_TimedOutChildIsNull(t *testing.T) {
	rules := withRules(t, `{"rules":[{"match":"^slow","delayMs":5000},{"match":"^stuck","timeout":true}]}`)
	out, rec := runScript(t, `
const a = await agent('slow task', {timeoutMs: 30})
const b = await agent({prompt: 'stuck task'})
return {a, b: b.status}`, rules)
	wantValue(t, out, `{"a":null,"b":"timed_out"}`)
	if out.Agents.TimedOut != 2 {
		t.Fatalf("counts %+v", out.Agents)
	}
	for _, ev := range rec.Of(EventAgentEnd) {
		if ev.Outcome != agentapi.StatusTimedOut {
			t.Fatalf("agent.end %+v", ev)
		}
	}
}

func TestAgent_SchemaInvalidReplyIsNull(t *testing.T) {
	rules := withRules(t, `{"rules":[{"match":"verdict","reply":{"real":"yes"}}]}`)
	out, rec := runScript(t, `
const v = await agent('verdict please', {schema: {type:'object', properties:{real:{type:'boolean'}}, required:['real']}})
return v`, rules)
	wantValue(t, out, `null`)
	if ev := rec.Of(EventAgentEnd)[0]; ev.Failure != agentapi.FailureInvalidOutput {
		t.Fatalf("agent.end %+v", ev)
	}
}

func TestAgent_MisuseIsFatalEvenInsideTryCatch(t *testing.T) {
	cases := []struct {
		name, call string
		code       wferr.Code
	}{
		{"unknown option", `agent('x', {temperature: 0.9})`, wferr.UnsupportedOption},
		{"bad first argument", `agent(7)`, wferr.InvalidArgument},
		{"bad option type", `agent('x', {maxTurns: 'many'})`, wferr.InvalidArgument},
		{"array schema root", `agent('x', {schema: {type: 'array', items: {type: 'string'}}})`, wferr.UnsupportedSchema},
		{"parallel of non-functions", `parallel([1, 2])`, wferr.InvalidArgument},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, _ := runScript(t, `try { await `+c.call+` } catch (e) { return 'swallowed' }
return 'went on'`)
			wantCode(t, out, c.code, "")
		})
	}
}

func TestAgent_UndefinedOptionCountsAsAbsent(t *testing.T) {
	out, _ := runScript(t, `const cfg = {}
return await agent('x', {model: cfg.model, label: undefined, tools: undefined})`)
	wantValue(t, out, `"x"`)
}

func TestAgent_OptionTheProviderCannotHonourIsRefused(t *testing.T) {
	p := &funcProvider{name: "plain", caps: agentapi.Capabilities{}, run: func(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
		return agentapi.Result{Status: agentapi.StatusCompleted, Text: "ok"}, nil
	}}
	out, _ := runScript(t, `return await agent('x', {schema: {type:'object'}, effort: 'high'})`, withProvider(p))
	wantCode(t, out, wferr.UnsupportedOption, `"plain" provider cannot honour effort, schema`)
	out, _ = runScript(t, `return await agent('x', {label: 'fine', timeoutMs: 1000})`, withProvider(p))
	wantValue(t, out, `"ok"`)
}

func TestAgent_CapIsFatalAndRefusedCallIsNotCounted(t *testing.T) {
	out, rec := runScript(t, `
const a = await agent('one')
const b = await agent('two')
try { await agent('three') } catch (e) {}
return 'unreachable'`, func(c *Config) { c.MaxAgents = 2 })
	wantCode(t, out, wferr.AgentCap, "at most 2 agents")
	if out.AgentsSpawned != 2 || len(rec.Of(EventAgentStart)) != 2 {
		t.Fatalf("spawned %d, starts %d", out.AgentsSpawned, len(rec.Of(EventAgentStart)))
	}
}

func TestAgent_BudgetExhaustedIsFatal(t *testing.T) {
	rules := withRules(t, `{"rules":[{"match":"^","usage":{"inputTokens":60,"outputTokens":50}}]}`)
	out, _ := runScript(t, `
log(budget.total, budget.remaining())
await agent('a')
if (budget.spent() !== 110 || budget.remaining() !== 0) return 'bad accounting ' + budget.spent()
await agent('b')
return 'unreachable'`, rules, func(c *Config) { c.BudgetTokens = 100 })
	wantCode(t, out, wferr.BudgetExhausted, "budget of 100")
	if out.AgentsSpawned != 1 || out.Usage.Tokens() != 110 {
		t.Fatalf("spawned %d usage %+v", out.AgentsSpawned, out.Usage)
	}
}

func TestAgent_NoBudgetMeansInfinity(t *testing.T) {
	out, _ := runScript(t, `return [budget.total, budget.remaining() === Infinity, budget.spent()]`)
	wantValue(t, out, `[null, true, 0]`)
}

func TestAgent_DefaultLabelIsFirstLineCut(t *testing.T) {
	_, rec := runScript(t, `await agent('\n  Summarise the following very long document about databases and more\nsecond line')`)
	got := rec.Of(EventAgentStart)[0].Label
	if got != "Summarise the following very long document abou…" || len([]rune(got)) != 48 {
		t.Fatalf("label %q (%d runes)", got, len([]rune(got)))
	}
}

func TestAgent_PhaseAndModelReachTheRequest(t *testing.T) {
	var seen []agentapi.Request
	p := &funcProvider{name: "rec", caps: agentapi.All(), run: func(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
		seen = append(seen, req)
		return agentapi.Result{Status: agentapi.StatusCompleted, Text: "ok"}, nil
	}}
	_, rec := runScript(t, `phase('Audit'); await agent('a'); await agent('b', {model: 'm2', phase: 'Verify'})`, withProvider(p),
		func(c *Config) { c.Meta.Model = "m1" })
	if seen[0].Phase != "Audit" || seen[0].Model != "m1" || seen[1].Phase != "Verify" || seen[1].Model != "m2" {
		t.Fatalf("requests %+v", seen)
	}
	if ph := rec.Of(EventPhase); len(ph) != 1 || ph[0].Title != "Audit" {
		t.Fatalf("phase events %+v", ph)
	}
}

func TestAgent_ModelPrecedenceIsCallThenPhaseThenMeta(t *testing.T) {
	var models []string
	p := &funcProvider{name: "rec", caps: agentapi.All(), run: func(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
		models = append(models, req.Model)
		return agentapi.Result{Status: agentapi.StatusCompleted, Text: "ok"}, nil
	}}
	runScript(t, `await agent('a'); phase('Deep'); await agent('b'); await agent('c', {model: 'call'})`, withProvider(p), func(c *Config) {
		c.Meta.Model = "run"
		c.Meta.Phases = []meta.Phase{{Title: "Deep", Model: "phase"}}
	})
	if strings.Join(models, ",") != "run,phase,call" {
		t.Fatalf("models %v", models)
	}
}

func TestAgent_ProviderNoteReachesAgentEnd(t *testing.T) {
	p := &funcProvider{name: "noted", caps: agentapi.All(), run: func(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
		return agentapi.Result{Status: agentapi.StatusCompleted, Text: "best effort", Note: "max_turns reached"}, nil
	}}
	_, rec := runScript(t, `return await agent('x')`, withProvider(p))
	if ev := rec.Of(EventAgentEnd)[0]; ev.Note != "max_turns reached" {
		t.Fatalf("agent.end %+v", ev)
	}
}

func TestAgent_AKeptWorktreeReachesTheEnvelopeTheEventAndTheOutcome(t *testing.T) {
	p := &funcProvider{name: "iso", caps: agentapi.All(), run: func(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
		res := agentapi.Result{Status: agentapi.StatusCompleted, Text: "done"}
		if req.Prompt == "edit" {
			res.Worktree = &agentapi.Worktree{Path: "/ws/.wfrun/worktrees/" + req.AgentID, Branch: "wfrun/" + req.AgentID}
		}
		return res, nil
	}}
	out, rec := runScript(t, `const a = await agent({prompt: 'edit', isolation: 'worktree'})
const b = await agent({prompt: 'look', isolation: 'worktree'})
return [a.worktree, b.worktree === undefined]`, withProvider(p))
	wantValue(t, out, `[{"path":"/ws/.wfrun/worktrees/ag_test_1","branch":"wfrun/ag_test_1"}, true]`)
	ends := rec.Of(EventAgentEnd)
	if len(ends) != 2 || ends[0].Worktree == nil || ends[0].Worktree.Branch != "wfrun/ag_test_1" || ends[1].Worktree != nil {
		t.Fatalf("agent.end worktrees: %+v", ends)
	}
	if len(out.Worktrees) != 1 || out.Worktrees[0].AgentID != "ag_test_1" {
		t.Fatalf("outcome worktrees %+v", out.Worktrees)
	}
}
