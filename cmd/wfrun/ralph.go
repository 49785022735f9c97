package main

import (
	"context"
	"flag"
	"strings"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/ralph"
)

// ralphCmd is `wfrun ralph "OBJECTIVE" [--max-rounds N] [--workspace
// DIR] [flags]`: the Ralph loop in the foreground. stdout carries the
// loop's result (ending, rounds, last handoff, the run's result); the exit
// status is 0 only when the objective is complete, 1 for blocked,
// budget-limited, round-failed or a run that failed, 130 when interrupted.
// A stopped loop goes on with wfrun resume RUNID.
func ralphCmd(fs *flag.FlagSet) runFunc {
	o := &ralphOptions{}
	o.bindTools(fs)
	count(fs, &o.maxRoundsN, "max-rounds", "10", "at most `N` rounds (default 10); with --budget-tokens, the loop ends budget-limited")
	return func(e env, positional []string) int {
		o.positional = positional
		return o.run(e)
	}
}

// ralphOptions are the flags of wfrun ralph.
type ralphOptions struct {
	options
	maxRoundsN int
}

func (o *ralphOptions) run(e env) int {
	if len(o.positional) != 1 || strings.TrimSpace(o.positional[0]) == "" {
		return usageFail(e, `ralph takes one objective, in quotes: wfrun ralph "Make go test ./... pass" [--max-rounds N]`)
	}
	if o.Isolate == "" {
		o.Isolate = "process" // as wfrun mcp: the parent model's scripts run in a child process each
	}
	in, err := loadToolInvocation(&o.options, e)
	if err != nil {
		return failBeforeRun(e, err)
	}
	opts := ralph.Options{Objective: o.positional[0], MaxRounds: o.maxRoundsN, BudgetTokens: in.Request.BudgetTokens,
		Model: in.Request.Model, SubagentProvider: in.Request.SubagentProvider, Parent: defaultParent}
	return runForeground(in, &o.options, e, func(eng *engine.Engine, onEvent func(engine.Event)) (*engine.Run, error) {
		opts.OnEvent = onEvent
		return ralph.Start(context.Background(), eng, opts)
	}, func(res engine.WorkflowResult, code int) (any, int) {
		out, _ := ralph.Decode(res)
		if code == exitCompleted && out.Ending != ralph.EndComplete {
			code = exitFailed
		}
		return out, code
	})
}
