package main

import (
	"context"
	"flag"
	"strings"

	"github.com/wfrun/wfrun/engine"
)

// resumeVerb is resume, retry or continue.
type resumeVerb string

const (
	// verbResume is `wfrun resume RUNID [flags]`: a new run of RUNID's
	// request (from its folder) that replays the agents RUNID finished
	// and runs the rest. --args changes the args (a changed prefix runs
	// live); the provider and limit flags override the saved request (a
	// limit may be raised).
	verbResume resumeVerb = "resume"
	// verbRetry is the retry verb, for a failed, cancelled or abandoned
	// run: a new run resumed from it, its child in the lineage.
	verbRetry resumeVerb = "retry"
	// verbContinue is the continue verb, for an abandoned run: resumed in
	// place, under its own id.
	verbContinue resumeVerb = "continue"
)

// resumeCmd returns the command of verb, which runs in the foreground, as
// `wfrun SCRIPT.js` runs one, a run whose request comes from RUNID's folder.
func resumeCmd(cmd resumeVerb) func(fs *flag.FlagSet) runFunc {
	return func(fs *flag.FlagSet) runFunc {
		o := &options{}
		if cmd == verbResume {
			bindArgs(fs, &o.args)
		}
		o.bindTools(fs)
		return func(e env, positional []string) int {
			o.positional = positional
			return resumeLike(cmd, o, e)
		}
	}
}

func resumeLike(cmd resumeVerb, o *options, e env) int {
	if len(o.positional) != 1 {
		return usageFail(e, "%s takes one run id (wfrun runs lists them): wfrun %s RUNID [flags]", cmd, cmd)
	}
	id := strings.TrimSpace(o.positional[0])
	in, err := loadResumeInvocation(id, o, e)
	if err != nil {
		return failBeforeRun(e, err)
	}
	over := in.Request
	return runForeground(in, o, e, func(eng *engine.Engine, onEvent func(engine.Event)) (*engine.Run, error) {
		over.OnEvent = onEvent
		adjust := func(r *engine.WorkflowStartRequest) { *r = over }
		switch cmd {
		case verbRetry:
			return eng.Retry(context.Background(), id, adjust)
		case verbContinue:
			return eng.Continue(context.Background(), id, adjust)
		}
		over.ResumeFromRunId = id
		return eng.Start(context.Background(), over)
	}, nil)
}
