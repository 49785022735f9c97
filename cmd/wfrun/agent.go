package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine/foreground"
	"github.com/wfrun/wfrun/engine/setup"
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
	if len(o.positional) != 1 || strings.TrimSpace(o.positional[0]) == "" {
		return usageFail(e, `agent takes one task, in quotes: wfrun agent "Review the three open pull requests"`)
	}
	if o.Isolate == "" {
		o.Isolate = "process" // as wfrun mcp: the parent model's scripts run in a child process each
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
	s, err := openSession(in, &o.options, e)
	if err != nil {
		return setupFailed(e, err)
	}
	subs, err := s.Subagents()
	if err != nil {
		notice(e, "%v", err)
		s.Close()
		return exitFailed
	}

	prog := s.Progress()
	defer prog.Stop()
	cfg := parent.Config{Model: model, Requester: defaultParent,
		Tools: tool.Options{Owner: parent.Owner, Personas: toolPersonas(in.Providers.Personas), Subagents: subs}}
	if prog != nil {
		cfg.Tools.OnEvent = prog.Record
	}
	if o.printScript {
		cfg.ShowScript = func(text string) {
			if prog != nil {
				prog.Above(text)
				return
			}
			fmt.Fprint(e.stderr, text)
		}
	}
	p, err := parent.New(s.Engine, cfg)
	if err != nil {
		prog.Stop()
		notice(e, "wfrun agent needs the openai provider for the parent model: %v", err)
		s.Close()
		return exitFailed
	}

	// The first signal cancels the parent's turn; a second exits at once.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type answer struct {
		res agentapi.Result
		err error
	}
	out := foreground.Wait(e.terminal(), prog, "the parent agent", interrupt.Go(func() answer {
		res, err := p.Run(ctx, o.positional[0])
		return answer{res, err}
	}), func(os.Signal) { cancel() })
	if out.Abandoned != nil {
		s.Abandon()
		return exitInterrupted
	}
	code := exitCompleted
	if err := out.Value.err; err != nil {
		notice(e, "%v", err)
		code = exitFailed
	} else {
		fmt.Fprintln(e.stdout, strings.TrimRight(out.Value.res.Text, "\n"))
	}
	if out.Interrupted != nil {
		code = exitInterrupted
	}
	// The parent's conversation ends here, so its sub-agents have nobody
	// left to steer them: they end with it.
	p.Close(context.Background(), "the wfrun agent parent that started it finished")
	s.Close()
	return code
}
