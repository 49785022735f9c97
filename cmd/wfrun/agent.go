package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/openai"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/tool"
)

// agentOwner owns the runs the parent agent starts.
const agentOwner = "agent"

// parentPrompt is the parent model's task. The openai provider's system
// prompt already says that the final message is the answer; this says
// what the two tools are for.
func parentPrompt(task string) string {
	return `You are the parent agent of wfrun. Your tools: workflow runs a JavaScript workflow you write, which hands tasks to sub-agents (its description is the manual); agent hands one task to one sub-agent and waits for its answer; the subagent_* tools start sub-agents that work in the background while you go on, take follow-ups and report each answer. Use the workflow tool for many similar tasks, independent opinions or stages that feed each other; use agent for a single delegated task; use subagent_start when you want to steer a worker as it goes; answer directly what needs no sub-agent. Collect the answers of the sub-agents you started (subagent_result) before you reply: they are closed when you do. When the tools have given you what you need, reply with the final answer for the user.

Task: ` + task
}

// agentCmd is `wfrun agent "TASK" [flags]`: a parent loop on the
// openai provider whose only tools are workflow, agent and the sub-agent
// tools. stdout carries
// the parent's final answer; notices, the scripts (--print-script), the
// progress line and `--events -` go to stderr.
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
	task := o.positional[0]
	if o.isolate == "" {
		o.isolate = "process" // as wfrun mcp: the parent model's scripts run in a child process each
	}
	in, err := loadToolInvocation(&o.options, e)
	if err != nil {
		return setupFailed(e, err)
	}
	cfg, err := openaiConfig(in.providers, e.getenv)
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
	opts := tool.Options{Owner: agentOwner, Personas: toolPersonas(in.personas), Subagents: subs}
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
	tools := tool.New(eng, opts)

	cfg.Toolbox = tools.Toolbox(append([]tool.Name{tool.Workflow, tool.Agent}, tool.SubagentNames()...)...)
	parent, err := openai.New(cfg)
	if err != nil {
		prog.Stop()
		notice(e, "wfrun agent needs the openai provider for the parent model: %v", err)
		_ = closeSubagents(subs)
		_ = closeEngine(eng)
		return exitFailed
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type outcome struct {
		res agentapi.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := parent.Run(ctx, agentapi.Request{RunID: "parent", AgentID: "parent", Parent: defaultParent, Prompt: parentPrompt(task), Label: "parent"})
		done <- outcome{res, err}
	}()
	interrupted := false
	var out outcome
	for waiting := true; waiting; {
		select {
		case out = <-done:
			waiting = false
		case sig := <-e.signals:
			if interrupted {
				prog.Stop()
				notice(e, "second %s: exiting without waiting for the parent agent", signalName(sig))
				return exitInterrupted
			}
			interrupted = true
			cancel()
		}
	}
	prog.Stop()
	code := exitCompleted
	switch {
	case out.err != nil:
		notice(e, "the parent agent could not run: %v", out.err)
		code = exitFailed
	case out.res.Status != agentapi.StatusCompleted:
		notice(e, "the parent agent did not finish: %s (%s): %s", out.res.Status, out.res.Failure, out.res.Error)
		code = exitFailed
	default:
		fmt.Fprintln(e.stdout, strings.TrimRight(out.res.Text, "\n"))
	}
	if interrupted {
		code = exitInterrupted
	}
	// The parent's conversation ends here, so its sub-agents have nobody
	// left to steer them: they end with it.
	tools.CloseSubagents(context.Background(), "the wfrun agent parent that started it finished")
	shutDown(e, eng, subs, events)
	return code
}
