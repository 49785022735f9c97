package main

import (
	"context"
	"flag"
	"time"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/ledger"
	"github.com/wfrun/wfrun/engine/listing"
	"github.com/wfrun/wfrun/engine/setup"
	"github.com/wfrun/wfrun/internal/statedir"
)

// The ledger commands: runs, show, stop and note read or change the run
// ledger in the runs folder, through an engine that runs nothing.

// runsOptions are the flags of wfrun runs; show, stop and note take
// --runs-dir and one or none of the others.
type runsOptions struct {
	runsDir, status, name, parent string
	asJSON                        bool
	temporalFlags                        // --temporal, --namespace and the connection
	reason                        string // stop
}

// ledgerCmd binds --runs-dir and what bind adds, and returns the function
// that runs the ledger command run with them.
func ledgerCmd(fs *flag.FlagSet, bind func(f *runsOptions), run func(f *runsOptions, positional []string, e env) int) runFunc {
	f := &runsOptions{}
	bindRunsDir(fs, &f.runsDir)
	bind(f)
	return func(e env, positional []string) int { return run(f, positional, e) }
}

func runsCmd(fs *flag.FlagSet) runFunc {
	return ledgerCmd(fs, func(f *runsOptions) {
		text(fs, &f.status, "status", "only the runs of this `STATUS`: "+listing.Statuses())
		text(fs, &f.name, "name", "only the runs of the workflow `NAME`")
		bindJSON(fs, &f.asJSON)
		f.temporalFlags.BindServerFlags(fs)
		text(fs, &f.parent, "parent", "with --temporal: only the runs the agent `NAME` owns")
	}, ledgerRuns)
}

func showCmd(fs *flag.FlagSet) runFunc {
	return ledgerCmd(fs, func(f *runsOptions) { bindJSON(fs, &f.asJSON) }, showRun)
}

func stopCmd(fs *flag.FlagSet) runFunc {
	return ledgerCmd(fs, func(f *runsOptions) {
		text(fs, &f.reason, "reason", "why, as `TEXT` on the run's timeline and in its result (default \"stopped with wfrun stop\")")
	}, stopRun)
}

func noteCmd(fs *flag.FlagSet) runFunc {
	return ledgerCmd(fs, func(*runsOptions) {}, noteRun)
}

// withLedger runs verb with an engine over the runs folder (listing.
// OpenLedger), after saying once if it had to rebuild the ledger, and
// closes the engine after it.
func withLedger(f *runsOptions, e env, verb func(eng *engine.Engine) int) int {
	state, err := statedir.Dir(e.getenv)
	if err == nil {
		var eng *engine.Engine
		if eng, err = listing.OpenLedger(setup.RunsDir(f.runsDir, e.getenv), state); err == nil {
			defer setup.CloseEngine(eng)
			if msg := listing.Rebuilt(eng); msg != "" {
				notice(e, "%s", msg)
			}
			return verb(eng)
		}
	}
	notice(e, "%v", err)
	return exitFailed
}

// ledgerRuns is `wfrun runs [--status S] [--name NAME] [--json]`: the
// runs of the ledger, newest first.
func ledgerRuns(f *runsOptions, positional []string, e env) int {
	if len(positional) > 0 {
		return usageFail(e, "runs takes only flags (--status, --name, --json, --runs-dir, --temporal); got %q", positional[0])
	}
	if err := f.Resolve(); err != nil {
		return usageFail(e, "%v", err)
	}
	if f.Server != "" {
		if f.runsDir != "" {
			return usageFail(e, "--runs-dir and --temporal list different runs (this machine's runs folder, a Temporal namespace); give one of them")
		}
		return runsOnTemporal(f, e)
	}
	if f.Namespace != "" || f.parent != "" || f.Connected() {
		return usageFail(e, "--namespace, --parent and the connection flags (--api-key, --tls, ...) go with --temporal HOST:PORT (or --address, --profile); add it or drop them")
	}
	status, err := listing.ParseStatus(f.status)
	if err != nil {
		return usageFail(e, "%v", err)
	}
	return withLedger(f, e, func(eng *engine.Engine) int {
		runs, err := eng.Ledger().List(context.Background(), ledger.Filter{Status: status, Name: f.name})
		if err != nil {
			notice(e, "the run ledger: %v", err)
			return exitFailed
		}
		if f.asJSON {
			return printJSON(e, listing.RunList{Runs: runs}, exitCompleted)
		}
		listing.WriteRuns(e.stdout, runs, time.Now())
		return exitCompleted
	})
}

// showRun is `wfrun show RUNID [--json]`: the run, its lineage, a tree
// of its children by phase (status, duration, tokens) and its timeline.
func showRun(f *runsOptions, positional []string, e env) int {
	if len(positional) != 1 {
		return usageFail(e, "show takes one run id (wfrun runs lists them): wfrun show RUNID [--json]")
	}
	return withLedger(f, e, func(eng *engine.Engine) int {
		s, err := listing.Show(eng.Ledger(), positional[0])
		if err != nil {
			notice(e, "%v", err)
			return exitFailed
		}
		if f.asJSON {
			return printJSON(e, s, exitCompleted)
		}
		listing.WriteShown(e.stdout, s)
		return exitCompleted
	})
}

// stopRun is `wfrun stop RUNID [--reason TEXT]`: the stop verb. The
// run's process cancels it at its next heartbeat; stop waits for that (at
// most a lease) and prints the run's row.
func stopRun(f *runsOptions, positional []string, e env) int {
	if len(positional) != 1 {
		return usageFail(e, "stop takes one run id: wfrun stop RUNID [--reason TEXT]")
	}
	return withLedger(f, e, func(eng *engine.Engine) int {
		r, stopped, err := listing.StopAndWait(eng, positional[0], f.reason)
		if err != nil {
			notice(e, "%v", err)
			return exitFailed
		}
		if !stopped {
			notice(e, "run %s is still running: the stop is recorded, and its process carries it out at its next heartbeat", positional[0])
			return printJSON(e, r, exitFailed)
		}
		return printJSON(e, r, exitCompleted)
	})
}

// noteRun is `wfrun note RUNID TEXT`: the follow_up verb, a note on
// the run's timeline; its status stays.
func noteRun(f *runsOptions, positional []string, e env) int {
	if len(positional) != 2 {
		return usageFail(e, `note takes a run id and the note, in quotes: wfrun note RUNID "what to remember"`)
	}
	return withLedger(f, e, func(eng *engine.Engine) int {
		noted, err := listing.Note(eng, positional[0], positional[1])
		if err != nil {
			notice(e, "%v", err)
			return exitFailed
		}
		return printJSON(e, noted, exitCompleted)
	})
}
