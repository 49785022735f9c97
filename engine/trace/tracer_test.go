package trace_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace/noop"

	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/command"
	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/agentapi/openai"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/enginetest"
	"github.com/wfrun/wfrun/engine/trace"
	"github.com/wfrun/wfrun/internal/testkit/leaktest"
)

func TestMain(m *testing.M) {
	engine.Init() // isolated runs re-execute this test binary
	leaktest.VerifyTestMain(m)
}

const phasedScript = `export const meta = { name: 'traced', description: 'phases, a tool call and a failure' }
const opener = await agent('before any phase', { label: 'opener' })
phase('gather')
const [looked, plain] = await Promise.all([
  agent('use the tool lookup, then answer', { label: 'looker' }),
  agent('a plain question', { label: 'plain' }),
])
phase('judge')
const refused = await agent('refuse this one', { label: 'refused' })
return { opener, looked, plain, refused }`

func openaiProvider(t *testing.T, srv *chatServer) agentapi.Provider {
	t.Helper()
	p, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", APIKey: "test", Model: "test-model", Toolbox: lookupTools{}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestARunWithPhasesAToolCallAndAFailureIsOneTreeOfSpans(t *testing.T) {
	srv := newChatServer(t)
	r := newRecorded(t)
	res, events := r.run(t, engine.Config{Providers: []agentapi.Provider{openaiProvider(t, srv)}, DefaultProvider: "openai"}, phasedScript)
	if res.StopReason != engine.StopCompleted || res.Agents.Completed != 3 || res.Agents.Failed != 1 {
		t.Fatalf("result %+v", res)
	}
	tr := r.tree(t)

	root := tr.named("invoke_workflow traced")
	if root.Parent.IsValid() {
		t.Errorf("the run's span has a parent: %v", root.Parent)
	}
	if root.SpanKind != oteltrace.SpanKindInternal || root.Status.Code != codes.Unset {
		t.Errorf("run span kind %v, status %v", root.SpanKind, root.Status)
	}
	wantAttrs(t, root, map[string]string{
		"gen_ai.operation.name": "invoke_workflow", "gen_ai.workflow.name": "traced",
		"wfrun.run.id": res.RunID, "wfrun.meta.name": "traced", "wfrun.parent": "test", "wfrun.provider": "openai",
		"wfrun.stop_reason": "completed", "wfrun.agents.spawned": "4", "wfrun.agents.completed": "3",
		"wfrun.agents.failed": "1", "wfrun.usage.input_tokens": "40", "wfrun.usage.output_tokens": "12",
		"wfrun.concurrency": "16",
	})
	wantNoAttr(t, root, "error.type")

	gather, judge := tr.named("phase gather"), tr.named("phase judge")
	for _, p := range []struct {
		span  string
		title string
	}{{"phase gather", "gather"}, {"phase judge", "judge"}} {
		s := tr.named(p.span)
		tr.wantParent(s, root)
		tr.wantWithin(s, root)
		wantAttrs(t, s, map[string]string{"wfrun.phase": p.title, "wfrun.run.id": res.RunID})
	}

	opener := tr.named("invoke_agent opener")
	tr.wantParent(opener, root) // no phase: a child of the run
	wantNoAttr(t, opener, "wfrun.phase")
	looker, plain, refused := tr.named("invoke_agent looker"), tr.named("invoke_agent plain"), tr.named("invoke_agent refused")
	tr.wantParent(looker, gather)
	tr.wantParent(plain, gather)
	tr.wantParent(refused, judge)
	tr.wantWithin(looker, gather)
	tr.wantWithin(plain, gather)
	tr.wantWithin(refused, judge)
	if !gather.EndTime.After(looker.EndTime) && !gather.EndTime.Equal(looker.EndTime) {
		t.Errorf("gather ends before its agent")
	}
	if judge.StartTime.Before(gather.EndTime) {
		t.Errorf("judge starts at %s, before gather ends at %s", judge.StartTime, gather.EndTime)
	}

	wantAttrs(t, looker, map[string]string{
		"gen_ai.operation.name": "invoke_agent", "gen_ai.provider.name": "openai", "gen_ai.agent.name": "looker",
		"gen_ai.response.model": "test-model-0613", "gen_ai.output.type": "text",
		"gen_ai.usage.input_tokens": "20", "gen_ai.usage.output_tokens": "6",
		"wfrun.run.id": res.RunID, "wfrun.agent.label": "looker", "wfrun.phase": "gather", "wfrun.agent.outcome": "completed",
	})
	if looker.Status.Code != codes.Unset {
		t.Errorf("looker status %v", looker.Status)
	}
	wantNoAttr(t, looker, "gen_ai.request.model") // the script names no model: the provider's default answers
	if seq := attrs(looker)["wfrun.agent.seq"]; seq != "2" && seq != "3" {
		t.Errorf("looker's seq is %q, want 2 or 3", seq)
	}
	wantAttrs(t, opener, map[string]string{"wfrun.agent.seq": "1"})
	wantAttrs(t, refused, map[string]string{"wfrun.agent.seq": "4"})

	// The failure: an error status whose type is the failure kind.
	if refused.Status.Code != codes.Error || !strings.Contains(refused.Status.Description, "this request is refused") {
		t.Errorf("refused status %+v", refused.Status)
	}
	wantAttrs(t, refused, map[string]string{"error.type": "task_failed", "wfrun.agent.outcome": "failed"})

	// The tool call and the chat turns are the agent's children.
	tool := tr.named("execute_tool lookup")
	tr.wantParent(tool, looker)
	tr.wantWithin(tool, looker)
	wantAttrs(t, tool, map[string]string{
		"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "lookup", "gen_ai.tool.call.id": "call_1",
		"gen_ai.tool.type": "function",
	})
	chats := tr.all("chat test-model")
	if len(chats) != 5 { // looker 2, plain 1, opener 1, refused 1
		t.Fatalf("%d chat spans, want 5: %s", len(chats), tr.names())
	}
	var lookerChats int
	for _, c := range chats {
		if c.SpanKind != oteltrace.SpanKindClient {
			t.Errorf("chat span kind %v, want client", c.SpanKind)
		}
		if c.Parent.SpanID() == looker.SpanContext.SpanID() {
			lookerChats++
			wantAttrs(t, c, map[string]string{
				"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": "test-model",
				"gen_ai.response.model": "test-model-0613", "gen_ai.response.id": "chatcmpl-1",
				"gen_ai.usage.input_tokens": "10", "gen_ai.usage.output_tokens": "3", "server.address": "127.0.0.1",
			})
		}
		if c.Parent.SpanID() == refused.SpanContext.SpanID() {
			if c.Status.Code != codes.Error {
				t.Errorf("the refused chat turn's status is %v", c.Status)
			}
			wantAttrs(t, c, map[string]string{"error.type": "task_failed"})
		}
	}
	if lookerChats != 2 {
		t.Errorf("looker has %d chat spans, want 2", lookerChats)
	}

	// Every request carried its chat span's trace context.
	chatIDs := map[string]bool{}
	for _, c := range chats {
		chatIDs[fmt.Sprintf("00-%s-%s-01", c.SpanContext.TraceID(), c.SpanContext.SpanID())] = true
	}
	headers := srv.headers()
	if len(headers) != 5 {
		t.Fatalf("%d requests, want 5", len(headers))
	}
	for _, h := range headers {
		if !chatIDs[h] {
			t.Errorf("traceparent %q names no chat span (%v)", h, chatIDs)
		}
	}

	// One trace, and the spans' times are the events'.
	for _, s := range tr.spans {
		if s.SpanContext.TraceID() != root.SpanContext.TraceID() {
			t.Errorf("%q is in trace %s, not the run's", s.Name, s.SpanContext.TraceID())
		}
	}
	for _, ev := range events {
		if ev.Type != engine.EventAgentStart && ev.Type != engine.EventAgentEnd {
			continue
		}
		s := tr.named("invoke_agent " + ev.Label)
		at := s.StartTime
		if ev.Type == engine.EventAgentEnd {
			at = s.EndTime
		}
		if !at.Equal(ev.Time) {
			t.Errorf("%s of %s at %s, its span's at %s", ev.Type, ev.Label, ev.Time, at)
		}
	}
}

func TestAFailedRunIsAnErrorWhoseTypeIsItsCode(t *testing.T) {
	r := newRecorded(t)
	res, _ := r.run(t, engine.Config{}, `export const meta = { name: 'thrower', description: 'throws' }
await agent('one')
throw new Error('the script gave up')`)
	if res.ErrorCode != engine.ErrorCode("SCRIPT_ERROR") {
		t.Fatalf("result %+v", res)
	}
	root := r.tree(t).named("invoke_workflow thrower")
	if root.Status.Code != codes.Error || !strings.Contains(root.Status.Description, "the script gave up") {
		t.Errorf("status %+v", root.Status)
	}
	wantAttrs(t, root, map[string]string{"error.type": "SCRIPT_ERROR", "wfrun.error.code": "SCRIPT_ERROR", "wfrun.stop_reason": "error"})
}

func TestACancelledRunAndItsCancelledAgentAreErrors(t *testing.T) {
	r := newRecorded(t)
	rules := &fake.Rules{Rules: []fake.Rule{{Match: "slow", DelayMs: 60_000}}}
	eng := enginetest.New(t, engine.Config{Observer: r.Tracer, FakeRules: rules})
	started := make(chan struct{})
	run, err := eng.Start(context.Background(), engine.WorkflowStartRequest{Parent: "test", OnEvent: func(ev engine.Event) {
		if ev.Type == engine.EventAgentStart {
			close(started)
		}
	}, Script: `export const meta = { name: 'stopped', description: 'cancelled while an agent waits' }
await agent('slow one', { label: 'sleeper' })`})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	run.Cancel("the test is done waiting")
	if res := run.Wait(); res.StopReason != engine.StopCancelled {
		t.Fatalf("result %+v", res)
	}
	tr := r.tree(t)
	root, agent := tr.named("invoke_workflow stopped"), tr.named("invoke_agent sleeper")
	wantAttrs(t, root, map[string]string{"error.type": "CANCELLED", "wfrun.stop_reason": "cancelled"})
	wantAttrs(t, agent, map[string]string{"error.type": "cancelled", "wfrun.agent.outcome": "cancelled"})
	if agent.Status.Code != codes.Error {
		t.Errorf("agent status %v", agent.Status)
	}
	tr.wantWithin(agent, root)
}

func TestAPersonaNamesTheAgentAndASchemaCallAnswersJSON(t *testing.T) {
	r := newRecorded(t)
	r.run(t, engine.Config{}, `export const meta = { name: 'personas', description: 'a persona and a schema' }
await agent('look around', { label: 'scout', agentType: 'Explore', model: 'small' })
await agent('give a number', { label: 'counter', schema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } })`)
	tr := r.tree(t)
	scout := tr.named("invoke_agent Explore")
	wantAttrs(t, scout, map[string]string{"gen_ai.agent.name": "Explore", "wfrun.agent.persona": "Explore",
		"wfrun.agent.label": "scout", "gen_ai.request.model": "small", "gen_ai.provider.name": "fake", "gen_ai.output.type": "text"})
	wantAttrs(t, tr.named("invoke_agent counter"), map[string]string{"gen_ai.output.type": "json"})
}

func TestAPhaseSpanCoversTheAgentsThatNameItLater(t *testing.T) {
	r := newRecorded(t)
	rules := &fake.Rules{Rules: []fake.Rule{{Match: "late", DelayMs: 30}}}
	r.run(t, engine.Config{FakeRules: rules}, `export const meta = { name: 'late', description: 'an agent names a phase the script left' }
phase('first')
const pending = agent('late work', { label: 'straggler' })
phase('second')
await agent('quick', { label: 'quick', phase: 'side' })
await pending
return 1`)
	tr := r.tree(t)
	first, second, side := tr.named("phase first"), tr.named("phase second"), tr.named("phase side")
	straggler, quick := tr.named("invoke_agent straggler"), tr.named("invoke_agent quick")
	tr.wantParent(straggler, first)
	tr.wantWithin(straggler, first) // it ended after the script left the phase
	tr.wantParent(quick, side)      // a phase only the option names
	tr.wantWithin(quick, side)
	if !side.StartTime.Equal(quick.StartTime) || !side.EndTime.Equal(quick.EndTime) {
		t.Errorf("side spans %s – %s, its only agent %s – %s", side.StartTime, side.EndTime, quick.StartTime, quick.EndTime)
	}
	if second.StartTime.Before(first.StartTime) {
		t.Errorf("second starts before first")
	}
}

func TestTheRunIsAChildOfTheSpanInStartsContext(t *testing.T) {
	r := newRecorded(t)
	eng := enginetest.New(t, engine.Config{Observer: r.Tracer})
	ctx, caller := r.tp.Tracer("caller").Start(context.Background(), "caller")
	run, err := eng.Start(ctx, engine.WorkflowStartRequest{Parent: "test", Script: `export const meta = { name: 'nested', description: 'inside a caller span' }
return await agent('x')`})
	if err != nil {
		t.Fatal(err)
	}
	run.Wait()
	caller.End()
	tr := r.tree(t)
	tr.wantParent(tr.named("invoke_workflow nested"), tr.named("caller"))
}

func TestACommandChildGetsItsAgentSpanInTRACEPARENT(t *testing.T) {
	spec, err := command.Parse([]byte(`{"name": "printenv", "argv": ["sh", "-c", "printf %s \"$TRACEPARENT\""]}`))
	if err != nil {
		t.Fatal(err)
	}
	p, err := command.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	r := newRecorded(t)
	res, _ := r.run(t, engine.Config{Providers: []agentapi.Provider{p}, DefaultProvider: "printenv"},
		`export const meta = { name: 'env', description: 'the child prints its TRACEPARENT' }
return await agent('print it', { label: 'printer' })`)
	s := r.tree(t).named("invoke_agent printer")
	want := fmt.Sprintf(`"00-%s-%s-01"`, s.SpanContext.TraceID(), s.SpanContext.SpanID())
	if string(res.Value) != want {
		t.Fatalf("the child saw TRACEPARENT %s, want %s", res.Value, want)
	}
	wantAttrs(t, s, map[string]string{"gen_ai.provider.name": "printenv"})
}

func TestANoopProviderFollowsNothing(t *testing.T) {
	tracer := trace.New(noop.NewTracerProvider())
	eng := enginetest.New(t, engine.Config{Observer: tracer})
	res, _ := enginetest.Run(t, eng, engine.WorkflowStartRequest{Script: `export const meta = { name: 'quiet', description: 'no spans' }
phase('p')
return await agent('x')`})
	if res.StopReason != engine.StopCompleted {
		t.Fatalf("result %+v", res)
	}
}

func TestConcurrentRunsKeepTheirSpansApart(t *testing.T) {
	r := newRecorded(t)
	eng := enginetest.New(t, engine.Config{Observer: r.Tracer})
	const n = 8
	runs := make([]*engine.Run, n)
	for i := range runs {
		run, err := eng.Start(context.Background(), engine.WorkflowStartRequest{Parent: "test", Script: fmt.Sprintf(`export const meta = { name: 'run%d', description: 'one of many' }
phase('p')
return await Promise.all([agent('a'), agent('b'), agent('c')])`, i)})
		if err != nil {
			t.Fatal(err)
		}
		runs[i] = run
	}
	for _, run := range runs {
		run.Wait()
	}
	tr := r.tree(t)
	for i, run := range runs {
		root := tr.named(fmt.Sprintf("invoke_workflow run%d", i))
		var agents int
		for _, s := range tr.spans {
			if attrs(s)["wfrun.run.id"] == run.ID() {
				if s.SpanContext.TraceID() != root.SpanContext.TraceID() {
					t.Errorf("%q of %s is in another trace", s.Name, run.ID())
				}
				if strings.HasPrefix(s.Name, "invoke_agent") {
					agents++
				}
			}
		}
		if agents != 3 {
			t.Errorf("run %d has %d agent spans", i, agents)
		}
	}
}
