package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/progress"
	"github.com/wfrun/wfrun/engine/setup"
	"github.com/wfrun/wfrun/engine/subagent"
	"github.com/wfrun/wfrun/engine/tool"
	"github.com/wfrun/wfrun/engine/tool/parent"
	"github.com/wfrun/wfrun/internal/interrupt"
)

// agentCmd is `wfrun agent "TASK" [flags]`: the parent agent of
// engine/tool/parent on the openai provider, whose only tools are
// workflow, agent and the sub-agent tools. stdout carries the parent's
// final answer; notices, the scripts (--print-script), the progress line
// and `--events -` go to stderr.
func agentCmd(fs *flag.FlagSet) runFunc {
	o := &agentOptions{}
	o.bindTools(fs)
	fs.BoolVar(&o.printScript, "print-script", false, "show each script the model writes on stderr")
	return func(e env, positional []string) int {
		o.positional = positional
		return o.run(e)
	}
}

// agentOptions are the flags of wfrun agent.
type agentOptions struct {
	options
	printScript bool
}

func (o *agentOptions) run(e env) int {
	task, code := o.task(e)
	if task == "" {
		return code
	}
	in, err := loadToolInvocation(&o.options, e)
	if err != nil {
		return setupFailed(e, err)
	}
	model, err := setup.OpenAIConfig(in.Providers)
	if err != nil {
		notice(e, "%v", err)
		return exitFailed
	}
	eng, events, closeAll, err := openEngine(in, &o.options, e)
	if err != nil {
		return setupFailed(e, err)
	}
	defer closeAll()
	subs, err := newSubagents(eng)
	if err != nil {
		notice(e, "%v", err)
		_ = closeEngine(eng)
		return exitFailed
	}

	prog := progressLine(e, events)
	defer prog.Stop()
	p, err := parent.New(eng, parent.Config{Model: model, Tools: agentToolOptions(in, o, e, subs, prog), Requester: defaultParent})
	if err != nil {
		prog.Stop()
		notice(e, "wfrun agent needs the openai provider for the parent model: %v", err)
		_ = closeSubagents(subs)
		_ = closeEngine(eng)
		return exitFailed
	}
	res, interrupted, err := runParent(p, task, e, prog)
	prog.Stop()
	if res == nil {
		return exitInterrupted // a second signal: exit at once
	}
	code = answer(e, *res, err, interrupted)
	// The parent's conversation ends here, so its sub-agents have nobody
	// left to steer them: they end with it.
	p.Close(context.Background(), "the wfrun agent parent that started it finished")
	shutDown(e, eng, subs, events)
	return code
}

// task is agent's one task, "" when the command is over with code (a
// usage error said).
func (o *agentOptions) task(e env) (string, int) {
	if len(o.positional) != 1 || strings.TrimSpace(o.positional[0]) == "" {
		return "", usageFail(e, `agent takes one task, in quotes: wfrun agent "Review the three open pull requests"`)
	}
	if o.Isolate == "" {
		o.Isolate = "process" // as wfrun mcp: the parent model's scripts run in a child process each
	}
	return o.positional[0], exitCompleted
}

// agentToolOptions are the parent's tool options: its personas and
// sub-agents, the progress line fed by its runs' events, and with
// --print-script each script shown before it runs.
func agentToolOptions(in *invocation, o *agentOptions, e env, subs *subagent.Manager, prog *progress.Line) tool.Options {
	opts := tool.Options{Owner: parent.Owner, Personas: toolPersonas(in.Providers.Personas), Subagents: subs}
	if prog != nil {
		opts.OnEvent = prog.Record
	}
	if o.printScript {
		opts.BeforeRun = func(req engine.WorkflowStartRequest) {
			text := fmt.Sprintf("--- workflow script ---\n%s\n--- end of script ---\n", strings.TrimRight(req.Script, "\n"))
			if prog != nil {
				prog.Above(text)
				return
			}
			fmt.Fprint(e.stderr, text)
		}
	}
	return opts
}

// runParent runs the parent on task until it answers; the first signal
// cancels it, and a second stops prog and returns at once with a nil
// result.
func runParent(p *parent.Agent, task string, e env, prog *progress.Line) (res *agentapi.Result, interrupted bool, err error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type outcome struct {
		res agentapi.Result
		err error
	}
	out := interrupt.Wait(interrupt.Go(func() outcome {
		res, err := p.Run(ctx, task)
		return outcome{res, err}
	}), e.signals, func(os.Signal) { cancel() })
	if out.Abandoned != nil {
		prog.Stop()
		notice(e, "second %s: exiting without waiting for the parent agent", signalName(out.Abandoned))
		return nil, true, nil
	}
	return &out.Value.res, out.Interrupted != nil, out.Value.err
}

// answer prints the parent's answer on stdout, or says why there is none,
// and returns the exit status.
func answer(e env, res agentapi.Result, err error, interrupted bool) int {
	code := exitCompleted
	if err != nil {
		notice(e, "%v", err)
		code = exitFailed
	} else {
		fmt.Fprintln(e.stdout, strings.TrimRight(res.Text, "\n"))
	}
	if interrupted {
		code = exitInterrupted
	}
	return code
}
