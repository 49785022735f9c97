package main

import (
	"context"
	"errors"
	"flag"

	"github.com/wfrun/wfrun/engine/setup"
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
	var ue *usageError
	if errors.As(err, &ue) {
		return usageFail(e, "%s", ue.Msg)
	}
	if err != nil {
		return printJSON(e, setup.FailedCheck(err), exitFailed)
	}
	res, supplied, err := setup.Check(context.Background(), in, setup.Build{Notify: func(msg string) { notice(e, "%s", msg) }})
	if supplied {
		metaNotice(e, in)
	}
	if err != nil {
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
