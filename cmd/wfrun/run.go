package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/foreground"
	"github.com/wfrun/wfrun/engine/setup"
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
		if err := setup.RemoteFlags(o.set); err != nil {
			return usageFail(e, "%v", err)
		}
		out, err := foreground.OpenOutput(o.events, e.terminal())
		if err != nil {
			return usageFail(e, "%v", err)
		}
		defer out.Close()
		return runOnTemporal(in, &o.temporalFlags, e, out)
	}

	if in.Request.Isolate == "" {
		// A script that crashes or exhausts its VM must end only its run,
		// not wfrun: --isolate none (or a --request that says so) opts out.
		in.Request.Isolate = engine.IsolateProcess
	}
	return runForeground(in, &o.options, e, func(eng *engine.Engine, onEvent func(engine.Event)) (*engine.Run, error) {
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

// terminal is the person's side of a foreground command: e's stderr and
// signals, notices prefixed "wfrun: ".
func (e env) terminal() foreground.Terminal {
	return foreground.Terminal{Stderr: e.stderr, Signals: e.signals, Notify: func(msg string) { notice(e, "%s", msg) }}
}

// openSession opens --events and the engine of in (foreground.Open),
// announcing the default provider it chose unless in names one. An
// --events that cannot be created is a *usageError; the engine's errors
// never are.
func openSession(in *invocation, o *options, e env) (*foreground.Session, error) {
	return foreground.Open(context.Background(), in, e.terminal(), foreground.Options{Events: o.events, Announce: !in.ExplicitProvider})
}

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

// runForeground is a run in the foreground (wfrun SCRIPT.js, resume, retry,
// continue, ralph): it opens the engine of in, starts the run with start
// (which must give the run onEvent as its OnEvent, nil or not) and
// follows it (foreground.Session.Follow: the progress line on a terminal,
// the first signal cancels the run, a second exits at once). Then it
// prints the result, or what render (nil: the result itself) makes of it
// with the exit status, and closes the engine.
func runForeground(in *invocation, o *options, e env, start func(*engine.Engine, func(engine.Event)) (*engine.Run, error), render func(engine.WorkflowResult, int) (any, int)) int {
	s, err := openSession(in, o, e)
	if err != nil {
		return failBeforeRun(e, err)
	}
	f := s.Follow(func(onEvent func(engine.Event)) (*engine.Run, error) { return start(s.Engine, onEvent) })
	if f.Abandoned != nil {
		s.Abandon()
		return exitInterrupted // a second signal: exit at once
	}
	var out any = f.Result
	code := exitStatus(f.Result, f.Interrupted)
	if render != nil {
		out, code = render(f.Result, code)
	}
	// The result first: closing waits for stragglers (a provider slow to
	// honour its cancel), and the person at the shell should not.
	code = printJSON(e, out, code)
	s.Close()
	return code
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
