package temporal_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/agentapi/persona"
	"github.com/wfrun/wfrun/engine"
	wftemporal "github.com/wfrun/wfrun/engine/temporal"
	"github.com/wfrun/wfrun/runtime/eventcheck"
)

// testEnv is a workflow test environment with the wfrun workflow
// registered over an engine whose only provider is the fake, and the
// agent activity mocked by agent (nil: the fake provider answers).
type testEnv struct {
	*testsuite.TestWorkflowEnvironment
	rec   eventcheck.Recorder
	mu    sync.Mutex
	calls []agentapi.Request
}

func newTestEnv(t *testing.T, agent func(context.Context, agentapi.Request) (agentapi.Result, error)) *testEnv {
	return newTestEnvWith(t, engine.Config{}, wftemporal.Options{}, agent)
}

// newTestEnvWith is newTestEnv with the worker's engine configured by cfg
// and its options by opts.
func newTestEnvWith(t *testing.T, cfg engine.Config, opts wftemporal.Options, agent func(context.Context, agentapi.Request) (agentapi.Result, error)) *testEnv {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(discard{})
	te := &testEnv{TestWorkflowEnvironment: s.NewTestWorkflowEnvironment()}
	eng, err := engine.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close(context.Background()) })
	opts.Payloads, opts.Events = wftemporal.DirStore{Dir: t.TempDir()}, te.rec.Record
	te.SetDataConverter(wftemporal.NewDataConverter(opts.Payloads))
	te.SetWorkerOptions(worker.Options{DeadlockDetectionTimeout: 20 * time.Second})
	wftemporal.Register(te, eng, opts)
	fakeP := fake.New(fake.Options{})
	if agent == nil {
		agent = fakeP.Run
	}
	te.OnActivity("wfrun.agent", mock.Anything, mock.Anything).Return(
		func(ctx context.Context, call wftemporal.AgentCall) (agentapi.Result, error) {
			te.mu.Lock()
			te.calls = append(te.calls, call.Request)
			te.mu.Unlock()
			return agent(ctx, call.Request)
		})
	return te
}

func (te *testEnv) run(t *testing.T, req engine.WorkflowStartRequest) engine.WorkflowResult {
	t.Helper()
	if req.Parent == "" {
		req.Parent = "test"
	}
	te.ExecuteWorkflow(wftemporal.WorkflowName, req)
	if !te.IsWorkflowCompleted() {
		t.Fatal("the workflow did not complete")
	}
	if err := te.GetWorkflowError(); err != nil {
		t.Fatalf("workflow error: %v", err)
	}
	var res engine.WorkflowResult
	if err := te.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	return res
}

const fanOut = `export const meta = {name: 'fan', description: 'fan out'}
const xs = await parallel(['a', 'b', 'c'].map(x => () => agent('say ' + x)))
const ys = await pipeline([1, 2], n => agent('one ' + n), (prev, n) => agent('two ' + prev))
return {xs, ys}`

func TestWorkflow_RunsAScriptWithEachAgentAnActivity(t *testing.T) {
	te := newTestEnv(t, nil)
	res := te.run(t, engine.WorkflowStartRequest{Script: fanOut})
	if res.StopReason != engine.StopCompleted {
		t.Fatalf("result %+v", res)
	}
	want := `{"xs":["say a","say b","say c"],"ys":["two one 1","two one 2"]}`
	if string(res.Value) != want {
		t.Fatalf("value %s, want %s", res.Value, want)
	}
	if res.AgentsSpawned != 7 || res.Agents.Completed != 7 || len(te.calls) != 7 {
		t.Fatalf("agents %+v, activity calls %d", res, len(te.calls))
	}
	if err := eventcheck.Check(te.rec.Events(), eventcheck.Options{RunEvents: true}); err != nil {
		t.Fatal(err)
	}
}

func TestWorkflow_AFailingAgentIsNullAndABrokenProviderEndsTheRun(t *testing.T) {
	te := newTestEnv(t, func(_ context.Context, req agentapi.Request) (agentapi.Result, error) {
		if strings.Contains(req.Prompt, "fail") {
			return agentapi.Result{Status: agentapi.StatusFailed, Failure: agentapi.FailureTaskFailed, Error: "could not"}, nil
		}
		return agentapi.Result{Status: agentapi.StatusCompleted, Text: "ok"}, nil
	})
	res := te.run(t, engine.WorkflowStartRequest{Script: `export const meta = {name: 'x', description: 'x'}
return [await agent('fail me'), await agent('fine')]`})
	if string(res.Value) != `[null,"ok"]` || res.Agents.Failed != 1 || res.Agents.Completed != 1 {
		t.Fatalf("result %+v %s", res, res.Value)
	}

	te = newTestEnv(t, func(context.Context, agentapi.Request) (agentapi.Result, error) {
		// What the agent activity returns for a provider's error.
		return agentapi.Result{}, temporal.NewNonRetryableApplicationError("no credentials", "", nil)
	})
	res = te.run(t, engine.WorkflowStartRequest{Script: `export const meta = {name: 'x', description: 'x'}
return await agent('x')`})
	if res.StopReason != engine.StopError || res.ErrorCode != engine.ErrorCode("AGENT_START") || !strings.Contains(res.Error, "no credentials") {
		t.Fatalf("result %+v", res)
	}
	if err := eventcheck.Check(te.rec.Events(), eventcheck.Options{RunEvents: true}); err != nil {
		t.Fatal(err)
	}
}

func TestWorkflow_APreCheckFailureIsTheResult(t *testing.T) {
	te := newTestEnv(t, nil)
	res := te.run(t, engine.WorkflowStartRequest{Script: `return 1`})
	if res.StopReason != engine.StopError || res.ErrorCode != engine.ErrorCode("META_INVALID") || res.AgentsSpawned != 0 {
		t.Fatalf("result %+v", res)
	}
}

func TestWorkflow_ValueEqualsAnInProcessRun(t *testing.T) {
	eng, err := engine.New(engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(context.Background())
	local := eng.Run(context.Background(), engine.WorkflowStartRequest{Script: fanOut, Parent: "test"})
	te := newTestEnv(t, nil)
	res := te.run(t, engine.WorkflowStartRequest{Script: fanOut})
	if !jsonEqual(local.Value, res.Value) || local.Agents != res.Agents || local.Usage != res.Usage {
		t.Fatalf("in process %+v %s\non temporal %+v %s", local, local.Value, res, res.Value)
	}
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	_ = json.Unmarshal(a, &x)
	_ = json.Unmarshal(b, &y)
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}

// discard is a Temporal logger that keeps the SDK's debug chatter out of
// test output.
type discard struct{}

func (discard) Debug(string, ...any) {}
func (discard) Info(string, ...any)  {}
func (discard) Warn(string, ...any)  {}
func (discard) Error(string, ...any) {}

func TestWorkflow_AnAgentPastItsTimeoutIsTimedOutByAWorkflowTimer(t *testing.T) {
	te := newTestEnv(t, untilCancelled(t)) // the activity would answer long after the agent's timeout
	res := te.run(t, engine.WorkflowStartRequest{Script: `export const meta = {name: 'x', description: 'x'}
const r = await agent({prompt: 'slow', timeoutMs: 1000})
return [r.status, r.result]`})
	if string(res.Value) != `["timed_out",null]` || res.Agents.TimedOut != 1 {
		t.Fatalf("result %+v %s", res, res.Value)
	}
	ends := te.rec.Of(engine.EventAgentEnd)
	if len(ends) != 1 || ends[0].Outcome != agentapi.StatusTimedOut || *ends[0].DurationMs != 1000 {
		t.Fatalf("agent.end %+v", ends)
	}
	if err := eventcheck.Check(te.rec.Events(), eventcheck.Options{RunEvents: true}); err != nil {
		t.Fatal(err)
	}
}

func TestWorkflow_CancellingTheWorkflowCancelsTheRunAndItsAgents(t *testing.T) {
	te := newTestEnv(t, untilCancelled(t))
	te.RegisterDelayedCallback(te.CancelWorkflow, 100*time.Millisecond)
	res := te.run(t, engine.WorkflowStartRequest{Script: `export const meta = {name: 'x', description: 'x'}
return await parallel([1, 2, 3].map(n => () => agent('wait ' + n)))`, Concurrency: 2})
	if res.StopReason != engine.StopCancelled || res.ErrorCode != engine.ErrorCode("CANCELLED") ||
		res.AgentsSpawned != 3 || res.Agents.Cancelled != 3 {
		t.Fatalf("result %+v", res)
	}
	// Two started (and ended as cancelled); the queued third never started.
	if n := len(te.rec.Of(engine.EventAgentStart)); n != 2 {
		t.Fatalf("%d agent.start events", n)
	}
	if err := eventcheck.Check(te.rec.Events(), eventcheck.Options{RunEvents: true}); err != nil {
		t.Fatal(err)
	}
}

func TestWorkflow_ALostWorkerOnEveryAttemptIsAFailedAgentNotABrokenRun(t *testing.T) {
	cases := []struct {
		name string
		err  error
	}{
		{"heartbeat timeout", temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_HEARTBEAT, nil)},
		{"stopping worker", temporal.NewApplicationError("the worker stopped", "WFRUN_WORKER_STOPPED")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			te := newTestEnv(t, func(context.Context, agentapi.Request) (agentapi.Result, error) { return agentapi.Result{}, c.err })
			res := te.run(t, engine.WorkflowStartRequest{Script: `export const meta = {name: 'x', description: 'x'}
const r = await agent({prompt: 'x'})
return [r.status, r.failure]`})
			if string(res.Value) != `["failed","upstream_unavailable"]` || res.StopReason != engine.StopCompleted {
				t.Fatalf("result %+v %s", res, res.Value)
			}
			if n := len(te.calls); n != wftemporal.DefaultAgentAttempts {
				t.Fatalf("%d attempts, want %d", n, wftemporal.DefaultAgentAttempts)
			}
		})
	}
}

func TestWorkflow_NestedWorkflowsComeFromTheWorkersFolderThroughTheHistory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "inner.js"), []byte(`export const meta = {name: 'inner', description: 'x'}
return 'inner ' + await agent('from inside ' + args.who)`), 0o644); err != nil {
		t.Fatal(err)
	}
	te := newTestEnvWith(t, engine.Config{WorkflowsDir: dir}, wftemporal.Options{}, nil)
	res := te.run(t, engine.WorkflowStartRequest{Script: `export const meta = {name: 'outer', description: 'x'}
return await workflow('inner', {who: 'outer'})`})
	if string(res.Value) != `"inner from inside outer"` {
		t.Fatalf("result %+v %s", res, res.Value)
	}
}

func TestWorkflow_LimitsAreTheRunsOwn(t *testing.T) {
	cases := []struct {
		name string
		req  engine.WorkflowStartRequest
		opts wftemporal.Options
		code string
	}{
		{"agent cap", engine.WorkflowStartRequest{MaxTotalAgents: 2, Script: `export const meta = {name: 'x', description: 'x'}
for (let i = 0; i < 3; i++) await agent('x' + i)`}, wftemporal.Options{}, "AGENT_CAP"},
		{"busy script", engine.WorkflowStartRequest{Script: `export const meta = {name: 'x', description: 'x'}
await agent('x'); while (true) {}`}, wftemporal.Options{MaxBusy: 200 * time.Millisecond}, "RESOURCE_LIMIT"},
		{"ceiling", engine.WorkflowStartRequest{MaxTotalAgents: wftemporal.MaxAgentsPerRun + 1, Script: `export const meta = {name: 'x', description: 'x'}
return 1`}, wftemporal.Options{}, "INVALID_REQUEST"},
		{"process isolation", engine.WorkflowStartRequest{Isolate: engine.IsolateProcess, Script: `export const meta = {name: 'x', description: 'x'}
return 1`}, wftemporal.Options{}, "INVALID_REQUEST"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			te := newTestEnvWith(t, engine.Config{}, c.opts, nil)
			res := te.run(t, c.req)
			if res.StopReason != engine.StopError || string(res.ErrorCode) != c.code {
				t.Fatalf("result %+v", res)
			}
			if evs := te.rec.Events(); len(evs) > 0 {
				if err := eventcheck.Check(evs, eventcheck.Options{RunEvents: true}); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// untilCancelled returns an agent activity that runs until it is
// cancelled, or until the test ends: the test environment does not cancel
// the context of an activity whose cancellation the workflow requested.
func untilCancelled(t *testing.T) func(context.Context, agentapi.Request) (agentapi.Result, error) {
	over := make(chan struct{})
	t.Cleanup(func() { close(over) })
	return func(ctx context.Context, _ agentapi.Request) (agentapi.Result, error) {
		select {
		case <-ctx.Done():
		case <-over:
		}
		return agentapi.Result{}, temporal.NewCanceledError()
	}
}

func TestWorkflow_TheEventsQueryHandsOutEveryEventInOrderInSmallPages(t *testing.T) {
	te := newTestEnv(t, nil)
	res := te.run(t, engine.WorkflowStartRequest{Script: `export const meta = {name: 'x', description: 'x'}
for (let i = 0; i < 40; i++) log('line ' + i + ' ' + 'x'.repeat(200))
return await agent('x')`})
	if res.StopReason != engine.StopCompleted {
		t.Fatalf("result %+v", res)
	}
	var got []engine.Event
	for next, pages := 0, 0; ; pages++ {
		v, err := te.QueryWorkflow(wftemporal.QueryEvents, next)
		if err != nil {
			t.Fatal(err)
		}
		var page wftemporal.EventPage
		if err := v.Get(&page); err != nil {
			t.Fatal(err)
		}
		if raw, _ := json.Marshal(page); len(raw) > wftemporal.PayloadInline {
			t.Fatalf("page %d is %d bytes, over what a history keeps inline", pages, len(raw))
		}
		if page.Next == next {
			if pages < 3 {
				t.Fatalf("%d pages for %d events", pages, len(got))
			}
			break
		}
		got = append(got, page.Events...)
		next = page.Next
	}
	want := te.rec.Events()
	if len(got) != len(want) || len(got) != 40+4 {
		t.Fatalf("%d events by query, %d emitted", len(got), len(want))
	}
	for i := range got {
		if got[i].Type != want[i].Type || got[i].Message != want[i].Message {
			t.Fatalf("event %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestWorkflow_AComputedAgentTypeIsCheckedWhereTheScriptRunsWithItsLine(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "reviewer.md"), []byte("---\nname: reviewer\ndescription: reviews\n---\nYou review.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := fake.New(fake.Options{Personas: persona.Load([]string{dir})})
	te := newTestEnvWith(t, engine.Config{Providers: []agentapi.Provider{p}, DefaultProvider: p.Name()}, wftemporal.Options{}, nil)
	script := `export const meta = {name: 'types', description: 'computed agent types'}
const kinds = ['review', 'er']
const ok = await agent('first', {agentType: kinds.join('')})
const bad = await agent('second', {agentType: kinds.join('-')})
return [ok, bad]`
	res := te.run(t, engine.WorkflowStartRequest{Script: script})
	if res.ErrorCode != engine.CodeUnsupportedOption || res.ErrorLine != 4 || !strings.Contains(res.Error, "review-er") {
		t.Fatalf("ended %s %s at line %d: %q; want UNSUPPORTED_OPTION at line 4 naming review-er", res.StopReason, res.ErrorCode, res.ErrorLine, res.Error)
	}
	if len(te.calls) != 1 || te.calls[0].Persona != "reviewer" {
		t.Fatalf("agent activities %+v, want the one with the known agentType", te.calls)
	}
}
