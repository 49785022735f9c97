package main

import (
	"context"
	"flag"
	"strings"
	"time"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/foreground"
	"github.com/wfrun/wfrun/engine/setup"
	wftemporal "github.com/wfrun/wfrun/engine/temporal"
	"github.com/wfrun/wfrun/internal/interrupt"
)

// The commands and flags of runs on Temporal (docs/scale-out.md): wfrun
// worker serves a task queue, --temporal sends wfrun SCRIPT.js and wfrun
// mcp's workflow tool there, wfrun runs --temporal lists its runs, and
// wfrun temporal dev starts the dev server binary.

// temporalFlags name the Temporal server and where runs go on it:
// engine/temporal's Target, which binds, resolves and dials them.
type temporalFlags = wftemporal.Target

// runOnTemporal is `wfrun SCRIPT.js --temporal HOST:PORT`: the run is
// checked here, started as a workflow, followed through its events and
// printed as the same WorkflowResult; the first signal cancels the
// workflow, a second exits at once.
func runOnTemporal(in *invocation, o *temporalFlags, e env, out *foreground.Output) int {
	// The workers have the providers; this engine only checks the script.
	eng, err := engine.New(engine.Config{})
	if err != nil {
		return printJSON(e, engine.FailedResult("", err), exitFailed)
	}
	defer setup.CloseEngine(eng)
	c, opts, err := o.Dial()
	if err != nil {
		return printJSON(e, engine.FailedResult("", precheck(engine.CodeInvalidRequest, "%v", err)), exitFailed)
	}
	defer c.Close()
	prepareRequest(eng, in, e)
	run, err := wftemporal.NewClient(c, eng, opts).Start(context.Background(), in.Request)
	if err != nil {
		return printJSON(e, engine.FailedResult("", err), exitFailed)
	}
	sink, prog := out.Sink(), out.Progress()
	defer prog.Stop()
	f := run.Follow(context.Background(), func(ev engine.Event) {
		if sink != nil {
			sink(ev)
		}
		if prog != nil {
			prog.Record(ev)
		}
	}, e.signals, func(err error) { notice(e, "%v", err) })
	prog.Stop()
	if f.Abandoned != nil {
		notice(e, "second %s: exiting without waiting for the run; it goes on being cancelled on Temporal", interrupt.Name(f.Abandoned))
		return exitInterrupted
	}
	return printJSON(e, f.Result, exitStatus(f.Result, f.Interrupted))
}

// workerCmd is `wfrun worker --temporal HOST:PORT [--task-queue Q]
// [--max-concurrent-agents N] [provider flags]`: it runs wfrun workflows
// and their agents (at most N at once) for the task queue until a signal
// comes, then stops (its agents in flight are run again by another worker).
func workerCmd(fs *flag.FlagSet) runFunc {
	o := &workerOptions{}
	o.agentFlags.Bind(fs)
	o.limitFlags.Bind(fs)
	bindEvents(fs, &o.events)
	bindOTLP(fs, &o.otlpEndpoint)
	o.temporalFlags.BindFlags(fs)
	count(fs, &o.maxConcurrentAgents, "max-concurrent-agents", "8", "at most `N` agents running at once on this worker, over all the runs it works on (default 1000, the Temporal SDK's); a worker whose slots are all taken leaves the queue's other agents to the other workers")
	return func(e env, positional []string) int { o.set = given(fs); return o.run(e, positional) }
}

// workerOptions are the flags of wfrun worker.
type workerOptions struct {
	options
	temporalFlags
	maxConcurrentAgents int // --max-concurrent-agents; 0: the SDK's default
}

func (o *workerOptions) run(e env, positional []string) int {
	if len(positional) > 0 {
		return usageFail(e, "worker takes no script (runs bring theirs); got %q", positional[0])
	}
	if err := o.ResolveFlags(o.set); err != nil {
		return usageFail(e, "%v", err)
	}
	if o.Server == "" {
		return usageFail(e, "worker needs --temporal HOST:PORT (or --address), the frontend of a Temporal server (wfrun temporal dev starts one on this machine), or --temporal config to take it from TEMPORAL_ADDRESS or a temporal.toml profile")
	}
	in, err := loadToolInvocation(&o.options, e)
	if err != nil {
		return setupFailed(e, err)
	}
	events, err := foreground.OpenOutput(o.events, e.terminal())
	if err != nil {
		return usageFail(e, "%v", err)
	}
	defer events.Close()
	// --events goes to the worker, not the engine: the worker logs a run's
	// events when it first executes them, never again while it replays a
	// history.
	s, err := foreground.Open(context.Background(), in, e.terminal(), foreground.Options{Announce: !in.ExplicitProvider})
	if err != nil {
		notice(e, "%v", err)
		return exitFailed
	}
	defer s.Close()
	eng := s.Engine
	opts := wftemporal.Options{MaxConcurrentAgents: o.maxConcurrentAgents, Events: events.Sink()}
	warn := func(err error) { notice(e, "%v; runs will not start until the namespace has them", err) }
	w, err := o.temporalFlags.Serve(eng, opts, warn)
	if err != nil {
		notice(e, "%v", err)
		return exitFailed
	}
	notice(e, "worker of task queue %s on %s, providers %s; stop it with Ctrl-C", w.Queue, w.Server, strings.Join(eng.Providers(), ", "))
	sig := <-e.signals
	notice(e, "%s: stopping the worker (its agents in flight go to another worker)", interrupt.Name(sig))
	w.Stop()
	return exitCompleted
}

// runsOnTemporal is `wfrun runs --temporal HOST:PORT [--parent P]
// [--status S] [--name N]`: the server's visibility query filters.
func runsOnTemporal(f *runsOptions, e env) int {
	runs, err := wftemporal.ListRunsAt(f.Conn(), wftemporal.RunFilter{Parent: f.parent, Status: f.status, Name: f.name})
	if err != nil {
		notice(e, "%v", err)
		return exitFailed
	}
	if f.asJSON {
		return printJSON(e, wftemporal.RunList{Runs: runs}, exitCompleted)
	}
	wftemporal.WriteRuns(e.stdout, runs, time.Now())
	return exitCompleted
}

// temporalDev is `wfrun temporal dev [flags]`: it runs the dev server
// binary, found beside wfrun or on PATH, in wfrun's place.
func temporalDev(args []string, e env) int {
	bin, err := wftemporal.FindDevServer()
	if err != nil {
		notice(e, "%v", err)
		return exitFailed
	}
	notice(e, "%v", wftemporal.ExecDevServer(bin, append([]string{"dev"}, args...)))
	return exitFailed
}
