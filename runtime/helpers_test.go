package runtime_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wfrun/wfrun/internal/testkit/leaktest"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/agentapi/workspace"
	"github.com/wfrun/wfrun/internal/wferr"
	"github.com/wfrun/wfrun/meta"
	. "github.com/wfrun/wfrun/runtime"
	"github.com/wfrun/wfrun/runtime/eventcheck"
	"github.com/wfrun/wfrun/runtime/isolate"
	"github.com/wfrun/wfrun/sandbox"
)

func TestMain(m *testing.M) {
	// Isolated runs re-execute this test binary as the child process.
	workspace.Dispatch(map[string]func([]string) int{isolate.ModeWord: isolate.Main})
	leaktest.VerifyTestMain(m)
}

// isolated says the suite runs every script in a child process
// (WFRUN_TEST_ISOLATE=process): the same tests, the other mode.
var isolated = os.Getenv("WFRUN_TEST_ISOLATE") == "process"

// runMode runs cfg the way the suite's mode says.
func runMode(ctx context.Context, cfg Config) Outcome {
	if isolated {
		return isolate.Run(ctx, cfg)
	}
	return Run(ctx, cfg)
}

// harness says how run sets a script going; its zero value is what most
// tests want.
type harness struct {
	ctx context.Context      // nil: context.Background()
	rec *eventcheck.Recorder // nil: a new one; set it to watch events while the run works
	// leaveDraining returns without waiting for the child goroutines, for a
	// test whose provider is still blocked and is released later; the test
	// waits on Outcome.Drained itself.
	leaveDraining bool
}

// run is the one way the runtime's tests run a script: it runs src with the
// fake provider (or the one opts set), checks the event invariants for the
// run's concurrency, and waits for every child goroutine to return (unless
// h.leaveDraining).
func run(t *testing.T, h harness, src string, opts ...func(*Config)) (Outcome, *eventcheck.Recorder) {
	t.Helper()
	ctx := h.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	rec := h.rec
	if rec == nil {
		rec = &eventcheck.Recorder{}
	}
	cfg := Config{
		RunID: "wf_test", Parent: "test", Script: mustParse(t, src),
		Meta:     meta.WorkflowMeta{Name: "t", Description: "test"},
		Provider: fake.New(fake.Options{}),
		Emit:     rec.Record,
	}
	for _, o := range opts {
		o(&cfg)
	}
	out := runMode(ctx, cfg)
	if err := eventcheck.Check(rec.Events(), eventcheck.Options{Concurrency: cfg.Concurrency}); err != nil {
		t.Errorf("event invariants: %v", err)
	}
	if h.leaveDraining {
		return out, rec
	}
	select {
	case <-out.Drained:
	case <-time.After(10 * time.Second):
		t.Fatalf("child goroutines did not drain")
	}
	return out, rec
}

// runScript is run with the zero harness.
func runScript(t *testing.T, src string, opts ...func(*Config)) (Outcome, *eventcheck.Recorder) {
	t.Helper()
	return run(t, harness{}, src, opts...)
}

func mustParse(t *testing.T, src string) *sandbox.Script {
	t.Helper()
	s, err := sandbox.Parse("script.js", src)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return s
}

func withRules(t *testing.T, rules string) func(*Config) {
	t.Helper()
	r, err := fake.Parse([]byte(rules))
	if err != nil {
		t.Fatalf("rules: %v", err)
	}
	return func(c *Config) { c.Provider = fake.New(fake.Options{Rules: r}) }
}

func withProvider(p agentapi.Provider) func(*Config) {
	return func(c *Config) { c.Provider = p }
}

func wantValue(t *testing.T, out Outcome, want string) {
	t.Helper()
	if out.Err != nil {
		t.Fatalf("run failed: %v", out.Err)
	}
	var got, exp any
	if err := json.Unmarshal(out.Value, &got); err != nil {
		t.Fatalf("value %s: %v", out.Value, err)
	}
	if err := json.Unmarshal([]byte(want), &exp); err != nil {
		t.Fatalf("bad want %s: %v", want, err)
	}
	g, _ := json.Marshal(got)
	e, _ := json.Marshal(exp)
	if string(g) != string(e) {
		t.Fatalf("value = %s, want %s", g, e)
	}
}

func wantCode(t *testing.T, out Outcome, code wferr.Code, contains string) {
	t.Helper()
	if out.Err == nil {
		t.Fatalf("run completed with %s, want %s", out.Value, code)
	}
	if out.Err.Code != code {
		t.Fatalf("code = %s (%v), want %s", out.Err.Code, out.Err, code)
	}
	if contains != "" && !strings.Contains(out.Err.Message, contains) {
		t.Fatalf("message %q does not contain %q", out.Err.Message, contains)
	}
}

// funcProvider is a provider whose Run is a function: for behaviours the
// fake provider does not have (ignoring cancellation, panicking, counting).
type funcProvider struct {
	name string
	caps agentapi.Capabilities
	run  func(ctx context.Context, req agentapi.Request) (agentapi.Result, error)
}

func (p *funcProvider) Name() string                        { return p.name }
func (p *funcProvider) Capabilities() agentapi.Capabilities { return p.caps }
func (p *funcProvider) Run(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
	return p.run(ctx, req)
}

// blockingProvider blocks every child until release is closed or its
// context ends, counting how many run at once.
type blockingProvider struct {
	release  chan struct{}
	running  atomic.Int32
	maxSeen  atomic.Int32
	mu       sync.Mutex
	started  []int
	ctxDone  atomic.Int32
	startedC chan int
}

func newBlocking() *blockingProvider {
	return &blockingProvider{release: make(chan struct{}), startedC: make(chan int, 1024)}
}

func (p *blockingProvider) Name() string                        { return "blocking" }
func (p *blockingProvider) Capabilities() agentapi.Capabilities { return agentapi.All() }
func (p *blockingProvider) Run(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
	n := p.running.Add(1)
	defer p.running.Add(-1)
	for {
		m := p.maxSeen.Load()
		if n <= m || p.maxSeen.CompareAndSwap(m, n) {
			break
		}
	}
	p.mu.Lock()
	p.started = append(p.started, req.Seq)
	p.mu.Unlock()
	p.startedC <- req.Seq
	select {
	case <-p.release:
		return agentapi.Result{Status: agentapi.StatusCompleted, Text: "done " + req.Prompt}, nil
	case <-ctx.Done():
		p.ctxDone.Add(1)
		return agentapi.Result{Status: agentapi.StatusCancelled, Failure: agentapi.FailureCancelled, Error: "cancelled"}, nil
	}
}
