package main

import (
	"errors"
	"flag"

	"github.com/wfrun/wfrun/engine"
)

// checkCmd is `wfrun check SCRIPT.js [flags]`: every pre-check of a run
// started with the same command line, and nothing executed. It accepts the
// flags that shape the request (--meta, --args, --provider, the limits, …)
// and refuses the ones that only shape how a run is watched.
func checkCmd(fs *flag.FlagSet) runFunc {
	o := &options{}
	o.inputFlags.bind(fs)
	o.agentFlags.Bind(fs)
	o.limitFlags.Bind(fs)
	return func(e env, positional []string) int {
		o.positional = positional
		return check(o, e)
	}
}

func check(o *options, e env) int {
	in, err := loadInvocation(o, e)
	if err != nil {
		var ue *usageError
		if errors.As(err, &ue) {
			return usageFail(e, "%s", ue.msg)
		}
		return printJSON(e, failedCheck(err), exitFailed)
	}
	in.runsDir = "" // a check runs nothing and keeps nothing
	eng, closeProviders, err := newEngine(in, e, nil, false, false)
	if err != nil {
		return printJSON(e, failedCheck(err), exitFailed)
	}
	defer closeProviders()
	prepareRequest(eng, in, e)
	res := eng.Check(in.req)
	if err := closeEngine(eng); err != nil {
		notice(e, "%v", err)
	}
	if !res.OK {
		return printJSON(e, res, exitFailed)
	}
	// A passing check always lists its warnings, even none, so that a
	// caller can read them without testing for the key.
	warnings := res.Warnings
	if warnings == nil {
		warnings = []string{}
	}
	return printJSON(e, struct {
		OK       bool     `json:"ok"`
		Meta     any      `json:"meta"`
		Warnings []string `json:"warnings"`
	}{true, res.Meta, warnings}, exitCompleted)
}

// failedCheck renders an error found before the engine's checks as a
// CheckResult.
func failedCheck(err error) engine.CheckResult {
	var we *engine.Error
	if !errors.As(err, &we) {
		we = &engine.Error{Code: engine.CodeInternal, Message: err.Error()}
	}
	return engine.CheckResult{ErrorCode: we.Code, Error: we.Message, ErrorLine: we.Line, ErrorColumn: we.Column}
}
