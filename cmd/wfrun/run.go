package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/setup"
	"github.com/wfrun/wfrun/engine/subagent"
	"github.com/wfrun/wfrun/engine/tool"
	"github.com/wfrun/wfrun/internal/interrupt"
)

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
	o.temporalFlags.BindFlags(fs)
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
	if err := o.ResolveFlags(o.set); err != nil {
		return usageFail(e, "%v", err)
	}
	in, err := loadInvocation(&o.options, e)
	if err != nil {
		return failBeforeRun(e, err)
	}

	if o.Server != "" {
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
		events, closeEvents, err := openEvents(o.events, e)
		if err != nil {
			return usageFail(e, "%v", err)
		}
		defer closeEvents()
		return runOnTemporal(in, &o.temporalFlags, e, events)
	}

	if in.Request.Isolate == "" {
		// A script that crashes or exhausts its VM must end only its run,
		// not wfrun: --isolate none (or a --request that says so) opts out.
		in.Request.Isolate = engine.IsolateProcess
	}
	return foreground(in, &o.options, e, func(eng *engine.Engine, onEvent func(engine.Event)) (*engine.Run, error) {
		prepareRequest(eng, in, e)
		in.Request.OnEvent = onEvent
		return eng.Start(context.Background(), in.Request)
	}, nil)
}

// failBeforeRun reports an error found before the engine was involved: a
// *usageError exits 2, a failed check prints its result and exits 1.
func failBeforeRun(e env, err error) int {
	var ue *usageError
	if errors.As(err, &ue) {
		return usageFail(e, "%s", ue.Msg)
	}
	return printJSON(e, engine.FailedResult("", err), exitFailed)
}

// sinks are where a run's events go besides the result.
type sinks struct {
	log      *setup.EventLog // --events; nil without it
	toStderr bool            // --events -
}

// openEvents opens --events. The returned close function is always safe to call.
func openEvents(path string, e env) (*sinks, func(), error) {
	log, closeLog, err := setup.OpenEventLog(path, e.stderr)
	if log == nil {
		return nil, closeLog, err
	}
	return &sinks{log: log, toStderr: path == "-"}, closeLog, nil
}

// newEngine builds the engine of in (setup.Open), its notices on stderr
// and its events to s. announce says which default provider a request
// that names none gets; withTools starts the MCP servers and the tracer (a
// check runs nothing). The returned function stops them, sending the
// traces still buffered.
func newEngine(in *invocation, e env, s *sinks, announce, withTools bool) (*engine.Engine, func(), error) {
	b := setup.Build{Announce: announce, WithTools: withTools, Notify: func(msg string) { notice(e, "%s", msg) }}
	if s != nil {
		b.Events = s.log.Record
	}
	eng, err := setup.Open(context.Background(), in, b)
	if err != nil {
		return nil, func() {}, err
	}
	announceRebuilt(e, eng.Engine)
	return eng.Engine, eng.Stop, nil
}

// openEngine opens --events and configures the engine for in, announcing
// the default provider it chose unless in names one. The returned function
// stops the providers and closes the events file. An --events that cannot
// be created is a *usageError; the engine's errors never are.
func openEngine(in *invocation, o *options, e env) (*engine.Engine, *sinks, func(), error) {
	events, closeEvents, err := openEvents(o.events, e)
	if err != nil {
		return nil, nil, nil, err
	}
	eng, closeProviders, err := newEngine(in, e, events, !in.ExplicitProvider, true)
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

// closeEngine closes an engine, waiting a while for its goroutines.
var closeEngine = setup.CloseEngine

// newSubagents keeps the continuable sub-agents of wfrun mcp and wfrun agent.
var newSubagents = tool.NewSubagents

// closeSubagents ends the running turns and unloads every child (they are
// ready for the next process); it comes before closeEngine, whose ledger
// the children live in.
func closeSubagents(m *subagent.Manager) error { return setup.CloseWithin("the sub-agents", m.Close) }

// prepareRequest completes in's request with the CLI's convenience of meta
// named after the file, and says on stderr what it did.
func prepareRequest(eng *engine.Engine, in *invocation, e env) {
	if setup.SupplyMeta(eng, &in.Request) {
		metaNotice(e, in)
	}
}

// metaNotice says that in's script got the meta of its file.
func metaNotice(e env, in *invocation) {
	notice(e, "%s has no meta; using %s (pass --meta to set your own)", in.ScriptFile, in.Request.Meta)
}

// foreground is a run in the foreground (wfrun SCRIPT.js, resume, retry,
// continue, ralph): it opens the engine of in, starts the run with start
// (which must give the run onEvent as its OnEvent, nil or not) and
// follows it, showing the progress line on a terminal and cancelling the
// run on the first signal; a second one exits at once. Then it prints the
// result, or what render (nil: the result itself) makes of it with the
// exit status, and closes the engine.
func foreground(in *invocation, o *options, e env, start func(*engine.Engine, func(engine.Event)) (*engine.Run, error), render func(engine.WorkflowResult, int) (any, int)) int {
	eng, events, closeAll, err := openEngine(in, o, e)
	if err != nil {
		return failBeforeRun(e, err)
	}
	defer closeAll()
	res, code := followRun(e, events, func(onEvent func(engine.Event)) (*engine.Run, error) { return start(eng, onEvent) })
	if res == nil {
		return code // a second signal: exit at once
	}
	var out any = res
	if render != nil {
		out, code = render(*res, code)
	}
	// The result first: closing waits for stragglers (a provider slow to
	// honour its cancel), and the person at the shell should not.
	code = printJSON(e, out, code)
	shutDown(e, eng, nil, events)
	return code
}

// followRun starts a run with start and waits for it, with the progress
// line and the signals of foreground. It returns the result (nil after a
// second signal) and the exit status.
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
	out := interrupt.Wait(run.Done(), e.signals, func(sig os.Signal) { run.Cancel("interrupted by " + signalName(sig)) })
	prog.Stop()
	if out.Abandoned != nil {
		notice(e, "second %s: exiting without waiting for the run", signalName(out.Abandoned))
		return nil, exitInterrupted
	}
	res := run.Wait()
	return &res, exitStatus(res, out.Interrupted != nil)
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

// signalName is how a notice names a signal.
var signalName = interrupt.Name
