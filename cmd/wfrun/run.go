package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/agentapi/workspace"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/subagent"
	"github.com/wfrun/wfrun/internal/human"
	"github.com/wfrun/wfrun/internal/statedir"
)

// closeTimeout bounds how long wfrun waits for the engine's goroutines after
// the result is printed (a provider past its cancel grace, say).
const closeTimeout = 10 * time.Second

// runOptions are the flags of `wfrun SCRIPT.js [flags]`.
type runOptions struct {
	options
	temporalFlags
	version bool
}

// runCmd is `wfrun SCRIPT.js [flags]`.
func runCmd(fs *flag.FlagSet) runFunc {
	o := &runOptions{}
	o.inputFlags.bind(fs)
	o.agentFlags.Bind(fs)
	o.limitFlags.Bind(fs)
	bindEvents(fs, &o.events)
	bindOTLP(fs, &o.otlpEndpoint)
	bindRunsDir(fs, &o.runsDir)
	o.temporalFlags.bind(fs)
	fs.BoolVar(&o.version, "version", false, "print the module version and VCS revision")
	return func(e env, positional []string) int {
		o.positional, o.set = positional, given(fs)
		return o.run(e)
	}
}

func (o *runOptions) run(e env) int {
	if o.version {
		fmt.Fprintln(e.stdout, "wfrun", version())
		return exitCompleted
	}
	if err := o.resolve(o.set); err != nil {
		return usageFail(e, "%v", err)
	}
	in, err := loadInvocation(&o.options, e)
	if err != nil {
		return failBeforeRun(e, err)
	}

	events, closeEvents, err := openEvents(o.events, e)
	if err != nil {
		return usageFail(e, "%v", err)
	}
	defer closeEvents()

	if o.temporal != "" {
		for _, name := range []string{"runs-dir", "otlp-endpoint", "isolate"} {
			if o.set[name] {
				return usageFail(e, "--%s does not apply to a run on Temporal, which the cluster's workers execute (and replay from its history); drop it or --temporal", name)
			}
		}
		// The flags that configure what runs the agents, or what
		// workflow() finds, are each worker's on Temporal.
		workers := flag.NewFlagSet("", flag.ContinueOnError)
		new(agentFlags).Bind(workers)
		var refused error
		workers.VisitAll(func(f *flag.Flag) {
			if o.set[f.Name] && f.Name != "provider" && f.Name != "model" && refused == nil {
				refused = fmt.Errorf("--%s configures the providers, and on Temporal the workers run them: give it to wfrun worker (--provider still picks one of theirs)", f.Name)
			}
		})
		if refused != nil {
			return usageFail(e, "%v", refused)
		}
		return runOnTemporal(in, &o.temporalFlags, e, events)
	}

	if in.req.Isolate == "" {
		// A script that crashes or exhausts its VM must end only its run,
		// not wfrun: --isolate none (or a --request that says so) opts out.
		in.req.Isolate = engine.IsolateProcess
	}
	eng, closeProviders, err := newEngine(in, e, events, !in.explicitProvider, true)
	if err != nil {
		return printJSON(e, engine.FailedResult("", err), exitFailed)
	}
	defer closeProviders()
	res, code := startAndWait(eng, in, e, events)
	if code == exitInterrupted && res == nil {
		return code // a second signal: exit at once
	}
	// The result first: closing waits for stragglers (a provider slow to
	// honour its cancel), and the person at the shell should not.
	code = printJSON(e, res, code)
	shutDown(e, eng, nil, events)
	return code
}

// failBeforeRun reports an error found before the engine was involved: a
// *usageError exits 2, a failed check prints its result and exits 1.
func failBeforeRun(e env, err error) int {
	var ue *usageError
	if errors.As(err, &ue) {
		return usageFail(e, "%s", ue.msg)
	}
	return printJSON(e, engine.FailedResult("", err), exitFailed)
}

// sinks are where a run's events go besides the result.
type sinks struct {
	log      *eventLog // --events; nil without it
	toStderr bool      // --events -
}

// openEvents opens --events. The returned close function is always safe to call.
func openEvents(path string, e env) (*sinks, func(), error) {
	switch path {
	case "":
		return nil, func() {}, nil
	case "-":
		return &sinks{log: newEventLog(e.stderr), toStderr: true}, func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, nil, fmt.Errorf("--events: cannot create %s; name a file in a folder you can write, or - for stderr", pathError(err))
	}
	return &sinks{log: newEventLog(f)}, func() { f.Close() }, nil
}

// rehearsal is the fake provider of a command line: it rehearses in the
// workspace the real providers would work in (--workspace, --sandbox), so
// that a dry run refuses what a real run would (a worktree outside a
// repository, an isolation no provider offers) and notes the tool names the
// workspace does not offer. A workspace that cannot be opened rehearses
// nothing; the real providers say why it cannot be used.
func rehearsal(in *invocation) agentapi.Provider {
	opts := fake.Options{Rules: in.fakeRules, Personas: in.personas}
	if ws, err := workspace.New(in.providers.workspace); err == nil {
		opts.Workspace = ws
	}
	return fake.New(opts)
}

// newEngine configures an engine for in. When the request names no
// provider, the engine's default is chosen from the environment and, if
// announce, a notice says which. withTools starts the MCP servers of
// --mcp-config (a check runs nothing and does not start them) and the
// tracer, when traces are to be exported; the returned function stops them,
// sending the traces still buffered.
func newEngine(in *invocation, e env, s *sinks, announce, withTools bool) (*engine.Engine, func(), error) {
	providers, closeProviders, err := providerSet(context.Background(), in.providers, e.getenv, in.req.SubagentProvider, withTools)
	if err != nil {
		return nil, func() {}, err
	}
	providers = append(providers, rehearsal(in))
	def, why := defaultProvider(providers)
	if announce && why != "" {
		notice(e, "%s", why)
	}
	cfg := engine.Config{
		Providers:       providers,
		DefaultProvider: def,
		FakeRules:       in.fakeRules,
		Personas:        in.personas,
		// The person at the shell may raise the budgets: --max-memory and
		// --max-run-folder are also the engine's ceilings.
		MaxMemory:    in.req.MaxMemoryBytes,
		MaxRunFolder: in.req.MaxRunFolderBytes,
		RunsDir:      in.runsDir,
	}
	workflowsConfig(&cfg, in, e)
	if n := len(in.personas.Errors()); n > 0 && announce {
		notice(e, "%d persona %s could not be loaded and %s left out; run wfrun agents to see why",
			n, human.Noun(n, "file", "files"), human.Noun(n, "is", "are"))
	}
	if s != nil {
		cfg.Events = s.log.record
	}
	if in.runsDir != "" {
		d, err := statedir.Dir(e.getenv)
		if err != nil {
			closeProviders()
			return nil, func() {}, precheck(engine.CodeInvalidRequest, "%v", err)
		}
		cfg.StateDir = d
	}
	if v := e.getenv("WFRUN_HEARTBEAT"); v != "" && in.runsDir != "" {
		// How often live runs renew their lease in the ledger; the lease is
		// ten beats. Tests shorten it; a person rarely needs to.
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			closeProviders()
			return nil, func() {}, precheck(engine.CodeInvalidRequest, "WFRUN_HEARTBEAT=%q is not a positive duration such as 2s", v)
		}
		cfg.Heartbeat = d
	}
	if in.engineConfig != nil {
		in.engineConfig(&cfg)
	}
	stopTracing := func() {}
	if withTools { // a check runs nothing and has nothing to trace
		tracer, stop := startTracing(in.tracing, e)
		if tracer != nil {
			cfg.Observer = tracer
		}
		stopTracing = stop
	}
	eng, err := engine.New(cfg)
	if err != nil {
		closeProviders()
		stopTracing()
		return nil, func() {}, err
	}
	announceRebuilt(e, eng)
	return eng, func() { closeProviders(); stopTracing() }, nil
}

// openEngine opens --events and configures the engine for in, announcing
// the default provider it chose unless in names one. The returned function
// stops the providers and closes the events file. An --events that cannot
// be created is a *usageError; the engine's errors never are.
func openEngine(in *invocation, o *options, e env) (*engine.Engine, *sinks, func(), error) {
	events, closeEvents, err := openEvents(o.events, e)
	if err != nil {
		return nil, nil, nil, usagef("%v", err)
	}
	eng, closeProviders, err := newEngine(in, e, events, !in.explicitProvider, true)
	if err != nil {
		closeEvents()
		return nil, nil, nil, err
	}
	return eng, events, func() { closeProviders(); closeEvents() }, nil
}

// shutDown closes what a command that ran scripts opened, each failure a
// notice: the sub-agents when subs is not nil, then the engine whose
// ledger they live in; last it says whether --events lost a write.
func shutDown(e env, eng *engine.Engine, subs *subagent.Manager, events *sinks) {
	if subs != nil {
		if err := closeSubagents(subs); err != nil {
			notice(e, "%v", err)
		}
	}
	if err := closeEngine(eng); err != nil {
		notice(e, "%v", err)
	}
	if events != nil && events.log.Err() != nil {
		notice(e, "--events: %v", events.log.Err())
	}
}

// prepareRequest completes in.req with the CLI's convenience of meta named
// after the file, and says on stderr what it did.
func prepareRequest(eng *engine.Engine, in *invocation, e env) {
	if supplyMeta(eng, &in.req) {
		notice(e, "%s has no meta; using %s (pass --meta to set your own)", in.scriptFile, in.req.Meta)
	}
}

// startAndWait starts the run and waits for it, cancelling it on the first
// signal. It returns the result (nil after a second signal) and the exit status.
func startAndWait(eng *engine.Engine, in *invocation, e env, s *sinks) (*engine.WorkflowResult, int) {
	prepareRequest(eng, in, e)
	return followRun(e, s, func(onEvent func(engine.Event)) (*engine.Run, error) {
		in.req.OnEvent = onEvent
		return eng.Start(context.Background(), in.req)
	})
}

// followRun starts a run with start (which must give the run onEvent as
// its OnEvent, nil or not) and waits for it, showing the progress line on
// a terminal and cancelling the run on the first signal. It returns the
// result (nil after a second signal) and the exit status.
func followRun(e env, s *sinks, start func(onEvent func(engine.Event)) (*engine.Run, error)) (*engine.WorkflowResult, int) {
	prog := progressLine(e, s)
	defer prog.Stop()
	var onEvent func(engine.Event)
	if prog != nil {
		onEvent = prog.Record
	}

	run, err := start(onEvent)
	if err != nil {
		prog.Stop()
		res := engine.FailedResult("", err)
		return &res, exitFailed
	}

	interrupted := false
	for {
		select {
		case <-run.Done():
			prog.Stop()
			res := run.Wait()
			return &res, exitStatus(res, interrupted)
		case sig := <-e.signals:
			if interrupted {
				prog.Stop()
				notice(e, "second %s: exiting without waiting for the run", signalName(sig))
				return nil, exitInterrupted
			}
			interrupted = true
			run.Cancel("interrupted by " + signalName(sig))
		}
	}
}

// exitStatus maps a settled run to the exit status.
func exitStatus(res engine.WorkflowResult, interrupted bool) int {
	switch {
	case res.StopReason == engine.StopCompleted:
		return exitCompleted
	case interrupted && res.StopReason == engine.StopCancelled:
		return exitInterrupted
	default:
		return exitFailed
	}
}

func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

// closeEngine closes eng, waiting at most closeTimeout for its goroutines.
func closeEngine(eng *engine.Engine) error {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	if err := eng.Close(ctx); err != nil {
		return fmt.Errorf("the engine did not shut down within %s: %w", closeTimeout, err)
	}
	return nil
}
