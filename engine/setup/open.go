package setup

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/agentapi/workspace"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/trace"
	"github.com/wfrun/wfrun/internal/human"
	"github.com/wfrun/wfrun/internal/statedir"
	"github.com/wfrun/wfrun/internal/wferr"
)

// CloseTimeout bounds how long CloseEngine waits for an engine's
// goroutines (a provider past its cancel grace, say).
const CloseTimeout = 10 * time.Second

// traceFlushTimeout bounds how long Engine.Stop waits for the collector
// to take the spans still buffered.
const traceFlushTimeout = 5 * time.Second

// Build says how Open builds the engine of an Invocation.
type Build struct {
	// Announce says, through Notify, which provider a request that
	// names none gets and why, and how many persona files were left out.
	Announce bool
	// WithTools starts what only running needs: the MCP servers of
	// Options.MCPConfig and the tracer. A check leaves it false.
	WithTools bool
	// Events, when set, receives every event of the engine's runs.
	Events func(engine.Event)
	// Notify shows a person one line; nil drops it.
	Notify func(string)
}

func (b Build) notify(format string, args ...any) {
	if b.Notify != nil {
		b.Notify(fmt.Sprintf(format, args...))
	}
}

// Engine is an engine Open built, with the providers and the tracer it
// started.
type Engine struct {
	*engine.Engine
	stop func()
}

// Stop stops what Open started besides the engine: the MCP servers and
// the tracer, sending the spans still buffered. It comes after the
// engine is closed (CloseEngine), and is safe to call more than once.
func (e *Engine) Stop() {
	if stop := e.stop; stop != nil {
		e.stop = nil
		stop()
	}
}

// Close closes the engine (CloseEngine), then stops the rest (Stop).
func (e *Engine) Close() error {
	err := CloseEngine(e.Engine)
	e.Stop()
	return err
}

// Open builds the engine of inv: the providers of inv.Providers for its
// request's provider (Providers), with a fake provider that rehearses in
// their workspace; the default provider; the personas, fake rules,
// saved-workflow folders and runs folder; the memory and run-folder
// ceilings raised to the request's; the lease heartbeat of
// $WFRUN_HEARTBEAT; inv.EngineConfig; and with b.WithTools the tracer.
// Nothing is left running when it fails.
func Open(ctx context.Context, inv *Invocation, b Build) (*Engine, error) {
	po := inv.Providers
	po.Provider, po.WithTools = inv.Request.SubagentProvider, b.WithTools
	set, err := Providers(ctx, po)
	if err != nil {
		return nil, err
	}
	providers := append(set.Providers, rehearsal(inv))
	def, why := DefaultProvider(providers)
	if b.Announce && why != "" {
		b.notify("%s", why)
	}
	cfg := engine.Config{
		Providers:       providers,
		DefaultProvider: def,
		FakeRules:       inv.FakeRules,
		Personas:        po.Personas,
		// The person who configures the run may raise the budgets: the
		// request's memory and run-folder budgets are also the ceilings.
		MaxMemory:    inv.Request.MaxMemoryBytes,
		MaxRunFolder: inv.Request.MaxRunFolderBytes,
		RunsDir:      inv.RunsDir,
		Events:       b.Events,
	}
	inv.workflows(&cfg)
	if n := len(po.Personas.Errors()); n > 0 && b.Announce {
		b.notify("%d persona %s could not be loaded and %s left out; run wfrun agents to see why",
			n, human.Noun(n, "file", "files"), human.Noun(n, "is", "are"))
	}
	if err := stateConfig(&cfg, po.getenv); err != nil {
		set.Close()
		return nil, err
	}
	if inv.EngineConfig != nil {
		inv.EngineConfig(&cfg)
	}
	stopTracing := func() {}
	if b.WithTools { // a check runs nothing and has nothing to trace
		var tracer *trace.Tracer
		if tracer, stopTracing = startTracing(inv.Tracing, b); tracer != nil {
			cfg.Observer = tracer
		}
	}
	eng, err := engine.New(cfg)
	if err != nil {
		set.Close()
		stopTracing()
		return nil, err
	}
	return &Engine{Engine: eng, stop: func() { set.Close(); stopTracing() }}, nil
}

// stateConfig sets, for an engine that keeps runs, wfrun's state folder
// and the lease heartbeat of $WFRUN_HEARTBEAT: how often live runs renew
// their lease in the ledger (the lease is ten beats). Tests shorten it; a
// person rarely needs to.
func stateConfig(cfg *engine.Config, getenv func(string) string) error {
	if cfg.RunsDir == "" {
		return nil
	}
	d, err := statedir.Dir(getenv)
	if err != nil {
		return wferr.New(wferr.InvalidRequest, "%v", err)
	}
	cfg.StateDir = d
	if v := getenv("WFRUN_HEARTBEAT"); v != "" {
		beat, err := time.ParseDuration(v)
		if err != nil || beat <= 0 {
			return wferr.New(wferr.InvalidRequest, "WFRUN_HEARTBEAT=%q is not a positive duration such as 2s", v)
		}
		cfg.Heartbeat = beat
	}
	return nil
}

// rehearsal is the fake provider of an invocation: it rehearses in the
// workspace the real providers would work in, so that a dry run refuses
// what a real run would (a worktree outside a repository, an isolation
// no provider offers) and notes the tool names the workspace does not
// offer. A workspace that cannot be opened rehearses nothing; the real
// providers say why it cannot be used.
func rehearsal(inv *Invocation) agentapi.Provider {
	opts := fake.Options{Rules: inv.FakeRules, Personas: inv.Providers.Personas}
	if ws, err := workspace.New(inv.Providers.Workspace); err == nil {
		opts.Workspace = ws
	}
	return fake.New(opts)
}

// startTracing returns the tracer that exports the runs' spans, or nil
// when no exporter is configured (the engine then gets no observer at
// all), and the function that sends what is still buffered. A failed
// export is a notice (once, until an export succeeds again), never a
// failed run; so is a tracer that cannot be built (Load checked the
// configuration, so only unreadable OTEL_RESOURCE_ATTRIBUTES are left).
func startTracing(opts trace.Options, b Build) (*trace.Tracer, func()) {
	if !trace.Enabled(opts) {
		return nil, func() {}
	}
	opts.OnError = func(err error) { b.notify("traces: %v", err) }
	t, err := trace.Start(context.Background(), opts)
	if err != nil {
		b.notify("%v; running without traces", err)
		return nil, func() {}
	}
	return t, func() {
		ctx, cancel := context.WithTimeout(context.Background(), traceFlushTimeout)
		defer cancel()
		if err := t.Shutdown(ctx); err != nil {
			b.notify("traces: the collector did not take the last spans within %s: %v", traceFlushTimeout, err)
		}
	}
}

// CloseEngine closes eng, waiting at most CloseTimeout for its
// goroutines.
func CloseEngine(eng *engine.Engine) error { return CloseWithin("the engine", eng.Close) }

// CloseWithin calls close with a context that ends after CloseTimeout;
// the error says that what did not shut down in time.
func CloseWithin(what string, close func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), CloseTimeout)
	defer cancel()
	if err := close(ctx); err != nil {
		return fmt.Errorf("%s did not shut down within %s: %w", what, CloseTimeout, err)
	}
	return nil
}

// SupplyMeta gives req the meta of its file (FileMeta) when neither the
// script nor the request has any. It asks eng once, with the file's meta
// as the request's FallbackMeta, and supplies it when the check took it
// and found it valid. The meta is then the request's own, so that the run
// folder's request, and a resume of it, carries it.
func SupplyMeta(eng *engine.Engine, req *engine.WorkflowStartRequest) (supplied bool) {
	if len(req.Meta) > 0 {
		return false
	}
	try := *req
	try.FallbackMeta = FileMeta(req.ScriptName)
	if c := eng.Check(try); !c.MetaFallback || c.ErrorCode == engine.CodeMetaInvalid {
		return false
	}
	req.Meta = try.FallbackMeta
	return true
}

// EventLog writes every event as one JSON line (docs/cli.md, "Events").
// The engine calls its sink from several goroutines, so writes are
// serialised. After the first failed write it stops writing and keeps the
// error for the end.
type EventLog struct {
	mu  sync.Mutex
	enc *json.Encoder
	err error
}

// NewEventLog returns the log that writes to w.
func NewEventLog(w io.Writer) *EventLog {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &EventLog{enc: enc}
}

// OpenEventLog opens the event log of path: none for "", one that writes
// to w for "-", else one that writes to a file created at path. The close
// function closes the file and is always safe to call.
func OpenEventLog(path string, w io.Writer) (*EventLog, func(), error) {
	switch path {
	case "":
		return nil, func() {}, nil
	case "-":
		return NewEventLog(w), func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, func() {}, inputErr("--events: cannot create %s; name a file in a folder you can write, or - for stderr", PathError(err))
	}
	return NewEventLog(f), func() { f.Close() }, nil
}

// Record is an engine event sink (engine.Config.Events).
func (l *EventLog) Record(ev engine.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		l.err = l.enc.Encode(ev)
	}
}

// Err returns the first write error.
func (l *EventLog) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// ProviderInfo is one provider an engine knows and what it can do.
type ProviderInfo struct {
	Name         string                `json:"name"`
	Capabilities agentapi.Capabilities `json:"capabilities"`
}

// ListProviders says which providers o configures, the engine's built-in
// fake with them, sorted by name, and which one a request that names none
// gets (wfrun providers). An error with a list is the engine that
// did not close in time; the list is still right.
func ListProviders(ctx context.Context, o Options) (def string, list []ProviderInfo, err error) {
	set, err := Providers(ctx, o)
	if err != nil {
		return "", nil, err
	}
	defer set.Close()
	var cfg engine.Config
	set.Apply(&cfg)
	eng, err := engine.New(cfg)
	if err != nil {
		return "", nil, err
	}
	list = []ProviderInfo{}
	for _, name := range eng.Providers() {
		p, _ := eng.Provider(name)
		list = append(list, ProviderInfo{Name: name, Capabilities: p.Capabilities()})
	}
	return set.Default, list, CloseEngine(eng)
}

// Check runs every pre-check of inv's run and executes nothing, as wfrun
// check does: on an engine that starts no tools and keeps no runs, with
// the file's meta supplied when the script has none (supplied says so,
// SupplyMeta). An engine that cannot be built is a failed result
// (FailedCheck); err is only an engine that did not close in time, the
// result still right.
func Check(ctx context.Context, inv *Invocation, b Build) (res engine.CheckResult, supplied bool, err error) {
	inv.RunsDir = ""
	b.WithTools = false
	eng, err := Open(ctx, inv, b)
	if err != nil {
		return FailedCheck(err), false, nil
	}
	defer eng.Stop()
	supplied = SupplyMeta(eng.Engine, &inv.Request)
	return eng.Check(inv.Request), supplied, CloseEngine(eng.Engine)
}

// FailedCheck renders an error found before the engine's checks (an
// input that could not be read, a provider that cannot be built) as a
// failed CheckResult, INTERNAL when err carries no code.
func FailedCheck(err error) engine.CheckResult {
	we, ok := wferr.As(err)
	if !ok {
		we = &engine.Error{Code: engine.CodeInternal, Message: err.Error()}
	}
	return engine.CheckResult{ErrorCode: we.Code, Error: we.Message, ErrorLine: we.Line, ErrorColumn: we.Column}
}
