package main

import (
	"context"
	"flag"
	"strings"

	"github.com/wfrun/wfrun/engine"
	runfolder "github.com/wfrun/wfrun/engine/journal"
	"github.com/wfrun/wfrun/engine/setup"
)

// defaultRunsDir is where the command line keeps its runs: a folder per
// run, and the ledger in it (.wfrun/runs/ledger.db).
const defaultRunsDir = ".wfrun/runs"

// runsDirOf is --runs-dir, else $WFRUN_RUNS_DIR, else .wfrun/runs.
func runsDirOf(o *options, e env) string {
	if o.runsDir != "" {
		return o.runsDir
	}
	if d := e.getenv("WFRUN_RUNS_DIR"); d != "" {
		return d
	}
	return defaultRunsDir
}

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
	eng, events, closeAll, err := openEngine(in, o, e)
	if err != nil {
		return failBeforeRun(e, err)
	}
	defer closeAll()
	over := in.req
	res, code := followRun(e, events, func(onEvent func(engine.Event)) (*engine.Run, error) {
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
	})
	if code == exitInterrupted && res == nil {
		return code
	}
	code = printJSON(e, res, code)
	shutDown(e, eng, nil, events)
	return code
}

// loadResumeInvocation reads the flags of resume, retry and continue. The
// request holds only what the flags set, to override the saved one; the
// saved request's provider decides which providers to build.
func loadResumeInvocation(id string, o *options, e env) (*invocation, error) {
	in, err := readInvocation(o, e, readInputs, applyRequestFlags, readFakeRules, readWorkflowsDir)
	if err != nil {
		return nil, err
	}
	in.req.Parent = "" // the saved owner: these commands refuse --parent
	in.scriptFile = id
	if !runfolder.ValidRunID(id) {
		return nil, usagef("%q is not a run id: a run id is wf_ and 16 hex digits, as wfrun runs lists them", id)
	}
	fromSaved, err := setup.Resume(in.runsDir, id, &in.req)
	if err != nil {
		return nil, err
	}
	if fromSaved {
		in.explicitProvider = true // the provider the run used, built on purpose
	}
	return in, nil
}
