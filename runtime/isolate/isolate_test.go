package isolate_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/agentapi/workspace"
	"github.com/wfrun/wfrun/internal/testkit/leaktest"
	"github.com/wfrun/wfrun/internal/testkit/loadbound"
	"github.com/wfrun/wfrun/internal/wferr"
	"github.com/wfrun/wfrun/meta"
	"github.com/wfrun/wfrun/runtime"
	"github.com/wfrun/wfrun/runtime/eventcheck"
	"github.com/wfrun/wfrun/runtime/isolate"
	"github.com/wfrun/wfrun/sandbox"
)

// The behaviour of isolated runs is tested by runtime's and engine's own
// suites run with WFRUN_TEST_ISOLATE=process; these tests are about what
// only a child process can do, or what can go wrong with one.

func TestMain(m *testing.M) {
	workspace.Dispatch(map[string]func([]string) int{isolate.ModeWord: isolate.Main})
	leaktest.VerifyTestMain(m)
}

// runIsolated runs src in a child process and checks the events.
func runIsolated(t *testing.T, ctx context.Context, src string, opts ...func(*runtime.Config)) (runtime.Outcome, *eventcheck.Recorder) {
	t.Helper()
	s, err := sandbox.Parse("script.js", src)
	if err != nil {
		t.Fatal(err)
	}
	rec := &eventcheck.Recorder{}
	cfg := runtime.Config{RunID: "wf_iso", Parent: "t", Script: s, Meta: meta.WorkflowMeta{Name: "t", Description: "d"},
		Provider: fake.New(fake.Options{}), Emit: rec.Record}
	for _, o := range opts {
		o(&cfg)
	}
	out := isolate.Run(ctx, cfg)
	select {
	case <-out.Drained:
	case <-time.After(30 * time.Second):
		t.Fatal("the isolated run did not drain")
	}
	if err := eventcheck.Check(rec.Events(), eventcheck.Options{Concurrency: cfg.Concurrency}); err != nil {
		t.Errorf("event invariants: %v", err)
	}
	return out, rec
}

type funcProvider struct {
	caps agentapi.Capabilities
	run  func(ctx context.Context, req agentapi.Request) (agentapi.Result, error)
}

func (p *funcProvider) Name() string                        { return "func" }
func (p *funcProvider) Capabilities() agentapi.Capabilities { return p.caps }
func (p *funcProvider) Run(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
	return p.run(ctx, req)
}

func TestRun_AScriptRunsInAChildProcessLikeInProcess(t *testing.T) {
	out, rec := runIsolated(t, context.Background(), "phase('one'); const r = await parallel([() => agent('a'), () => agent('b', {schema: {type: 'object', properties: {n: {type: 'integer'}}, required: ['n']}})]); log('done'); return [r, args]",
		func(c *runtime.Config) { c.Args = []byte(`{"x":1}`) })
	if out.Err != nil || string(out.Value) != `[["a",{"n":0}],{"x":1}]` {
		t.Fatalf("%s %v", out.Value, out.Err)
	}
	if n := len(rec.Of(runtime.EventAgentEnd)); n != 2 || out.Agents.Completed != 2 || out.AgentsSpawned != 2 {
		t.Fatalf("%d ends, %+v", n, out)
	}
	if len(rec.Of(runtime.EventPhase)) != 1 || len(rec.Of(runtime.EventLog)) != 1 {
		t.Fatalf("events %+v", rec.Events())
	}
}

func TestRun_ThePipeCarriesNoSecretOfTheEngine(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-must-not-leak")
	// The child's environment is empty: a script cannot read it anyway,
	// and a crash report from the child cannot carry it.
	out, _ := runIsolated(t, context.Background(), "return typeof process")
	if out.Err != nil || string(out.Value) != `"undefined"` {
		t.Fatalf("%s %v", out.Value, out.Err)
	}
}

func TestRun_CancellingReachesTheProviderThroughThePipe(t *testing.T) {
	var cancelled atomic.Bool
	started := make(chan struct{})
	p := &funcProvider{caps: agentapi.All(), run: func(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
		close(started)
		<-ctx.Done()
		cancelled.Store(true)
		return agentapi.Result{Status: agentapi.StatusCancelled, Failure: agentapi.FailureCancelled, Error: "cancelled"}, nil
	}}
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() { <-started; cancel(runtime.CancelledError("enough")) }()
	out, rec := runIsolated(t, ctx, "return await agent('wait')", func(c *runtime.Config) { c.Provider = p })
	if wferr.CodeOf(out.Err) != wferr.Cancelled || !strings.Contains(out.Err.Message, "enough") || !cancelled.Load() {
		t.Fatalf("%v, provider cancelled: %v", out.Err, cancelled.Load())
	}
	if len(rec.Of(runtime.EventAgentEnd)) != 1 {
		t.Fatal("the cancelled child has no agent.end")
	}
}

func TestRun_APanickingProviderEndsOnlyItsRun(t *testing.T) {
	p := &funcProvider{caps: agentapi.All(), run: func(context.Context, agentapi.Request) (agentapi.Result, error) { panic("boom") }}
	out, _ := runIsolated(t, context.Background(), "return await agent('x')", func(c *runtime.Config) { c.Provider = p })
	if wferr.CodeOf(out.Err) != wferr.AgentResult || !strings.Contains(out.Err.Message, "panicked") {
		t.Fatalf("%v", out.Err)
	}
}

func TestRun_ANativeLoopTheInterruptCannotReachEndsAtTheDeadline(t *testing.T) {
	// String.raw over a sparse array of 2^32-1 holes loops natively in
	// goja, where a deadline cannot interrupt it (the sandbox sizes a
	// spread or a Set of it first, but not this); in a child process the
	// parent kills it when its deadline and grace have passed.
	if testing.Short() {
		t.Skip("waits for a deadline")
	}
	timer := loadbound.Start(t)
	out, _ := runIsolated(t, context.Background(), "const a = []; a.length = 2**32 - 1; return String.raw({ raw: a }).length",
		func(c *runtime.Config) { c.Timeout = 500 * time.Millisecond; c.CancelGrace = 200 * time.Millisecond })
	if wferr.CodeOf(out.Err) != wferr.Timeout {
		t.Fatalf("%v", out.Err)
	}
	if took := timer.Stop(); took.Over(15 * time.Second) {
		t.Fatalf("took %v", took)
	}
}

func TestRun_AnAllocationPastTheLimitKillsOnlyTheChild(t *testing.T) {
	if isolate.OSMemoryLimit() == "" {
		t.Skip("no operating-system memory limit here (the race detector, and no writable memory cgroup)")
	}
	if testing.Short() {
		t.Skip("allocates until the limit")
	}
	// A sparse array spread natively into 2^26 slots: 1 GiB the in-process
	// guards do not see coming. The operating system stops the child.
	var started atomic.Int32
	p := &funcProvider{caps: agentapi.All(), run: func(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
		started.Add(1)
		<-ctx.Done() // never answers: the child dies first
		return agentapi.Result{Status: agentapi.StatusCancelled, Error: "cancelled"}, nil
	}}
	out, rec := runIsolated(t, context.Background(), "agent('keeps running'); const a = []; a.length = 2**26; return [...a].length",
		func(c *runtime.Config) { c.MaxMemory = 32 << 20; c.Provider = p; c.Timeout = time.Minute })
	if wferr.CodeOf(out.Err) != wferr.ResourceLimit || !strings.Contains(out.Err.Message, "32 MiB") {
		t.Fatalf("%v", out.Err)
	}
	// The child that was running when the process died is ended for it.
	ends := rec.Of(runtime.EventAgentEnd)
	if started.Load() != 1 || len(ends) != 1 || ends[0].Outcome != agentapi.StatusCancelled || out.Agents.Cancelled != 1 {
		t.Fatalf("started %d, ends %+v, counts %+v", started.Load(), ends, out.Agents)
	}
}

func TestRun_ACancelledContextStartsNoProcess(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(runtime.CancelledError("before it began"))
	out, rec := runIsolated(t, ctx, "return await agent('x')")
	if wferr.CodeOf(out.Err) != wferr.Cancelled || len(rec.Events()) != 0 {
		t.Fatalf("%v %v", out.Err, rec.Events())
	}
}

func TestAnIsolatedRunLoadsSavedWorkflowsByNameAndByPathThroughTheParent(t *testing.T) {
	load := func(what string) func(string) (*sandbox.Script, error) {
		return func(ref string) (*sandbox.Script, error) {
			return sandbox.Parse(ref, "return '"+what+" "+ref+"'")
		}
	}
	out, _ := runIsolated(t, context.Background(),
		"return [await workflow('saved'), await workflow({scriptPath: 'flows/x.js'})]",
		func(c *runtime.Config) { c.LoadWorkflow, c.LoadWorkflowFile = load("name"), load("path") })
	if out.Err != nil || string(out.Value) != `["name saved","path flows/x.js"]` {
		t.Fatalf("%s %v", out.Value, out.Err)
	}
	out, _ = runIsolated(t, context.Background(), "return await workflow({scriptPath: 'flows/x.js'})",
		func(c *runtime.Config) { c.LoadWorkflow = load("name") })
	if we, ok := wferr.As(out.Err); !ok || we.Code != wferr.InvalidArgument {
		t.Fatalf("a run without a workspace loaded a path: %s %v", out.Value, out.Err)
	}
}
