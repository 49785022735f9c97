package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/agentapi/persona"
	"github.com/wfrun/wfrun/engine/ledger"
	"github.com/wfrun/wfrun/internal/wferr"
	"github.com/wfrun/wfrun/runtime"
	"github.com/wfrun/wfrun/runtime/isolate"
)

// Defaults for a zero Config.
const (
	DefaultProvider     = "fake"
	DefaultMaxAgents    = runtime.DefaultMaxAgents
	DefaultConcurrency  = runtime.DefaultConcurrency
	MaxConcurrency      = 256 // the most children of one run a request may ask to run at once
	DefaultMaxItems     = runtime.DefaultMaxItems
	DefaultRunTimeout   = time.Hour
	DefaultCancelGrace  = runtime.DefaultCancelGrace
	DefaultScriptCache  = 256
	DefaultMaxRunFolder = 256 << 20 // bytes of a run folder's events and journal
	maxParentLength     = 256
	maxArgsBytes        = 8 << 20
	maxMetaRequestBytes = 64 << 10
)

// DefaultScriptName names a request's script in positions and stack traces
// when its ScriptName is empty.
const DefaultScriptName = "script.js"

// Config configures an Engine. The zero value is a working engine whose
// only provider is "fake", with the limits of docs/script-api.md ("Limits").
type Config struct {
	// Providers are registered in addition to "fake" (which is always
	// present unless a provider of that name is given here).
	Providers []agentapi.Provider
	// DefaultProvider names the provider used when a request names none;
	// "" means "fake".
	DefaultProvider string
	// FakeRules configures the built-in fake provider.
	FakeRules *fake.Rules
	// Personas are what agentType may name for the built-in fake provider:
	// when the set found a folder of persona files, an unknown name is
	// refused as it would be by a real provider, so that a dry run catches
	// a typo. Build it with persona.Load(persona.SearchDirs(…)) and give the
	// same set to the providers you construct (openai.Config.Personas).
	// nil: the fake provider accepts any name.
	Personas *persona.Set

	// MaxTotalAgents is the ceiling of accepted agent() calls per run;
	// requests may lower it, never raise it. 0 means 1000.
	MaxTotalAgents int
	// Concurrency is the number of children of one run that may run at
	// once; further calls wait in FIFO order. 0 means 16.
	Concurrency int
	// MaxItems caps the items of one parallel() or pipeline() call. 0 means 4096.
	MaxItems int
	// RunTimeout is the default deadline of a run; 0 means one hour and a
	// negative value means none.
	RunTimeout time.Duration
	// AgentTimeout is the default timeout of one child; 0 means none.
	AgentTimeout time.Duration
	// BudgetTokens is the default token budget of a run; 0 means none.
	BudgetTokens int64
	// CancelGrace is how long a cancelled child's provider may take to
	// return before the run ends it and drops its late result. 0 means 2s.
	CancelGrace time.Duration
	// MaxResultBytes limits the JSON size of a run's value. 0 means 16 MiB.
	MaxResultBytes int
	// MaxCallStackSize limits script recursion. 0 means the sandbox default.
	MaxCallStackSize int
	// Isolate says where runs execute their scripts: IsolateNone ("", the
	// default) in this process, IsolateProcess each in a child process of
	// its own, with an operating-system memory limit and no file system, so
	// that a script that crashes or exhausts its VM ends only its own run. A
	// request may ask for more isolation, never less. IsolateProcess needs
	// Init at the top of main.
	Isolate Isolation

	// MaxMemory is the memory budget of a run in bytes, and the most a
	// request may ask for (requests may lower it): builtins that would
	// allocate past it, and a script that grows the heap past it while
	// running without a pause, end the run with RESOURCE_LIMIT. 0 means
	// 256 MiB. See docs/script-api.md, "Limits".
	MaxMemory int64

	// WorkflowsDirs are the folders workflow(name) finds saved workflows
	// in, searched in order, first match winning. Build the list with
	// WorkflowSearchDirs(explicit, workspace, home), which puts a Claude
	// Code project's WORKSPACE/.claude/workflows in it; nil (with
	// WorkflowsDir "") leaves workflow(name) unavailable.
	WorkflowsDirs []string
	// WorkflowsDir is one folder searched before WorkflowsDirs; kept for
	// the programs that set it before WorkflowsDirs existed.
	WorkflowsDir string
	// Workspace is the folder workflow({scriptPath}) and the workflow
	// tool's scriptPath resolve in; files beneath it (scriptPath, and the
	// workflows folders inside it) are read without following any link,
	// since children may write there. "" leaves scriptPath unavailable.
	Workspace string

	// Events, if set, receives every event of every run. It is called from
	// several goroutines (one call at a time per run) and must not block
	// for long.
	Events func(Event)

	// Observer, if set, follows every run with the contexts it runs under
	// (engine/trace turns runs into OpenTelemetry spans); see Observer.
	Observer Observer

	// ScriptCache is how many compiled scripts are kept; 0 means 256.
	ScriptCache int

	// MaxBackgroundRuns is how many background runs one owner may have
	// running at once; 0 means 10. FinishedRunsKept (0: 100 per owner) and
	// FinishedRunTTL (0: one hour) bound how long finished runs stay
	// visible to Lookup, Info and Runs.
	MaxBackgroundRuns int
	FinishedRunsKept  int
	FinishedRunTTL    time.Duration

	// RunsDir, when set, makes runs durable (docs/durability.md): each run
	// gets a folder RunsDir/<runId>/ with its request, script, events,
	// journal and result, and a row in the run ledger, so that it can be
	// resumed, retried, continued and listed after its process is gone.
	// "" (the default) writes nothing anywhere.
	RunsDir string
	// LedgerPath is the run ledger's file; "" means ledger.db in RunsDir.
	// A missing or empty ledger is rebuilt from the run folders
	// (Engine.Rebuilt). Unused without RunsDir.
	LedgerPath string
	// StateDir is wfrun's private state folder, where each durable run's
	// key is kept (engine/journal): it must be outside every workspace and
	// hidden from every child. "" means statedir.Dir's answer
	// ($WFRUN_STATE_DIR, $XDG_STATE_HOME/wfrun, ~/.local/state/wfrun).
	// Unused without RunsDir.
	StateDir string
	// MaxRunFolder is the size budget of a durable run's folder in bytes:
	// the most its event log and journal may hold together, and the most a
	// request may ask for (requests may lower it). A line that would pass it
	// is not written and the run ends with RESOURCE_LIMIT; what was written
	// stays whole, so the run can be resumed with a larger budget. 0 means
	// DefaultMaxRunFolder (256 MiB). Unused without RunsDir.
	MaxRunFolder int64
	// Heartbeat is how often a live run renews its lease in the ledger and
	// saves its children's snapshots; 0 means 2 s. The lease is ten beats:
	// a run whose process has been gone that long is abandoned.
	Heartbeat time.Duration
}

// Engine starts and tracks workflow runs. It is safe for concurrent use; two
// engines in one process share nothing.
type Engine struct {
	cfg       Config
	providers agentapi.Registry
	cache     scriptCache
	workflows *workflowIndex // nil without workflows folders or a workspace
	registry  registry       // every run by owner, until dropped (registry.go)
	ledger    *ledger.Ledger // nil without Config.RunsDir (durable.go)
	stateDir  string         // where the run keys are; "" without Config.RunsDir
	rebuilt   int            // run folders the ledger was rebuilt from at New (rebuild.go)

	mu     sync.Mutex
	runs   map[string]*Run
	closed bool
	drain  sync.WaitGroup // runs and their child goroutines
	loops  *runners       // the goroutines the runs' loops run on (runners.go)

	// testHookPublished, set only by tests, is called by Start right after
	// a run became visible to Close.
	testHookPublished func()
}

// New returns an engine for cfg.
func New(cfg Config) (*Engine, error) {
	if cfg.DefaultProvider == "" {
		cfg.DefaultProvider = DefaultProvider
	}
	if cfg.MaxTotalAgents <= 0 {
		cfg.MaxTotalAgents = DefaultMaxAgents
	}
	if cfg.RunTimeout == 0 {
		cfg.RunTimeout = DefaultRunTimeout
	}
	if cfg.ScriptCache <= 0 {
		cfg.ScriptCache = DefaultScriptCache
	}
	e := &Engine{cfg: cfg, runs: make(map[string]*Run), loops: newRunners()}
	e.cache.limit = cfg.ScriptCache
	e.workflows = newWorkflowIndex(cfg)
	hasFake := false
	for _, p := range cfg.Providers {
		if p == nil {
			return nil, fmt.Errorf("engine: Config.Providers holds a nil provider")
		}
		if err := e.providers.Register(p); err != nil {
			return nil, fmt.Errorf("engine: %w", err)
		}
		hasFake = hasFake || p.Name() == "fake"
	}
	if !hasFake {
		_ = e.providers.Register(fake.New(fake.Options{Rules: cfg.FakeRules, Personas: cfg.Personas}))
	}
	if _, ok := e.providers.Lookup(cfg.DefaultProvider); !ok {
		return nil, fmt.Errorf("engine: the default provider %q is not registered (registered: %s)",
			cfg.DefaultProvider, strings.Join(e.providers.Names(), ", "))
	}
	if cfg.RunsDir != "" {
		if err := e.openDurable(); err != nil {
			return nil, fmt.Errorf("engine: %w", err)
		}
	}
	return e, nil
}

// Providers returns the registered providers' names, sorted.
func (e *Engine) Providers() []string { return e.providers.Names() }

// Provider returns the provider registered under name.
func (e *Engine) Provider(name string) (agentapi.Provider, bool) { return e.providers.Lookup(name) }

// DefaultProvider returns the name of the provider a request that names
// none runs on.
func (e *Engine) DefaultProvider() string { return e.cfg.DefaultProvider }

// NewRunID returns a fresh run id: "wf_" and 16 random hex digits, the form
// of every run id the engine gives (runs on Temporal take theirs from here
// too, so the ledger, the page and the verbs know both alike).
func NewRunID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "wf_" + hex.EncodeToString(b[:])
}

// Start checks req and starts the run. Every pre-check (parse, meta,
// provider, caps, args) happens here, before any JavaScript runs; a failed
// pre-check returns an *Error (render it with FailedResult) and no Run.
// Cancelling ctx cancels the run.
func (e *Engine) Start(ctx context.Context, req WorkflowStartRequest) (*Run, error) {
	var plan startPlan
	if req.ResumeFromRunId != "" {
		var err error
		if req, plan, err = e.resolveResume(req); err != nil {
			return nil, err
		}
	}
	return e.start(ctx, req, plan)
}

// start is Start once a resume has been resolved: plan says which id the
// run takes and what it replays.
func (e *Engine) start(ctx context.Context, req WorkflowStartRequest, plan startPlan) (*Run, error) {
	p, err := e.prepare(req)
	if err != nil {
		return nil, err
	}
	id := plan.id
	if id == "" {
		id = NewRunID()
	}
	r := newRun(id, p.meta, p.warnings)
	p.cfg.RunID = r.id
	rec, err := e.register(r, req)
	if err != nil {
		return nil, err
	}
	var st *store
	if e.durable() {
		if st, err = e.openStore(ctx, r.id, req, p.meta.Name, plan, p.folder); err != nil {
			e.unregister(r.id)
			return nil, err
		}
		p.cfg.Journal = st
	}
	sinks := []func(Event){rec.observe, e.cfg.Events, req.OnEvent}
	if e.cfg.Observer != nil {
		sinks = append(sinks, e.cfg.Observer.Event)
	}
	if st != nil {
		sinks = append([]func(Event){st.observe}, sinks...)
	}
	r.emit = func(ev Event) {
		defer func() { _ = recover() }() // a panicking sink must not take the process down
		for _, s := range sinks {
			if s != nil {
				s(ev)
			}
		}
	}
	p.cfg.Emit = r.emit

	// The run is complete before it is published: Close may cancel it the
	// moment it is in e.runs.
	runCtx, cancel := context.WithCancelCause(ctx)
	r.cancel = cancel
	if st != nil {
		st.end = cancel
	}

	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		cancel(nil)
		e.unregister(r.id)
		if st != nil {
			st.finish(FailedResult(r.id, wferr.New(wferr.Cancelled, "the engine closed before the run started")))
		}
		return nil, wferr.New(wferr.Cancelled, "the engine is closed")
	}
	e.runs[r.id] = r
	e.drain.Add(1)
	e.mu.Unlock()
	if e.testHookPublished != nil {
		e.testHookPublished()
	}

	if o := e.cfg.Observer; o != nil {
		runCtx = o.StartRun(runCtx, ObservedRun{RunID: r.id, Parent: req.Parent, Provider: p.provider.Name(), Meta: r.meta})
		p.cfg.ChildContext = o.StartChild
	}
	r.emit(Event{Type: EventRunStart, RunID: r.id, Time: time.Now(), Meta: &r.meta, Warnings: r.warnings,
		Concurrency: p.cfg.Concurrency})
	if st != nil {
		st.startBeat(r) // execute waits for it (store.finish)
	}
	cfg, iso := p.cfg, p.isolate
	e.loops.run(func() { e.execute(runCtx, r, cfg, iso, st) })
	return r, nil
}

// execute runs r on a goroutine of its own (the run's loop goroutine, lent
// by e.loops) and
// settles it; a durable run's store is finished first, so that its result
// is on disk when Wait returns. Settling is a function of its own so that
// its locals are not on the stack of a run that waits: ten thousand runs
// waiting for their agents keep ten thousand of these stacks.
func (e *Engine) execute(ctx context.Context, r *Run, cfg runtime.Config, iso Isolation, st *store) {
	start := time.Now()
	var out runtime.Outcome
	if iso == IsolateProcess {
		out = isolate.Run(ctx, cfg)
	} else {
		out = runtime.Run(ctx, cfg)
	}
	e.settleRun(r, &out, time.Since(start), st)
}

// settleRun emits run.end, finishes the store and settles r with the
// outcome of its run. The run's loop goroutine, once the run is over.
func (e *Engine) settleRun(r *Run, out *runtime.Outcome, d time.Duration, st *store) {
	res := NewResult(r.id, *out, r.warnings, d)
	r.emit(res.EndEvent(time.Now()))
	if st != nil {
		res.Warnings = append(res.Warnings, st.finish(res)...)
	}
	// No longer live before Wait returns: a caller that retries or resumes
	// the run the moment it ended must not be told it is still running.
	e.mu.Lock()
	delete(e.runs, r.id)
	e.mu.Unlock()
	r.settle(res)
	r.cancel(nil)

	select {
	case <-out.Drained: // the usual case: no provider is still running
		e.drain.Done()
	default:
		go func() {
			<-out.Drained
			e.drain.Done()
		}()
	}
}

// Run starts req and waits for its result: Start followed by Wait, with a
// failed pre-check rendered as a result.
func (e *Engine) Run(ctx context.Context, req WorkflowStartRequest) WorkflowResult {
	r, err := e.Start(ctx, req)
	if err != nil {
		return FailedResult("", err)
	}
	return r.Wait()
}

// Close cancels every run still going and waits until all of them have
// settled and every child goroutine has returned, or until ctx is done.
// Start fails after Close.
func (e *Engine) Close(ctx context.Context) error {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	for _, r := range e.liveRuns() {
		r.Cancel("the engine is closing")
	}
	done := make(chan struct{})
	go func() {
		e.drain.Wait()
		close(done)
	}()
	select {
	case <-done:
		e.loops.close() // every run has settled: only idle runners are left
		if e.ledger != nil {
			return e.ledger.Close()
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// liveRuns returns the runs that have not settled yet.
func (e *Engine) liveRuns() []*Run {
	e.mu.Lock()
	defer e.mu.Unlock()
	runs := make([]*Run, 0, len(e.runs))
	for _, r := range e.runs {
		runs = append(runs, r)
	}
	return runs
}
