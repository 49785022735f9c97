package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/ledger"
	"github.com/wfrun/wfrun/internal/human"
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
		text(fs, &f.status, "status", "only the runs of this `STATUS`: "+statusList())
		text(fs, &f.name, "name", "only the runs of the workflow `NAME`")
		bindJSON(fs, &f.asJSON)
		f.temporalFlags.bindConnection(fs)
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

// openLedgerEngine returns an engine over the runs folder, for its ledger
// and verbs.
func openLedgerEngine(f *runsOptions, e env) (*engine.Engine, error) {
	dir := f.runsDir
	if dir == "" {
		dir = runsDirOf(&options{}, e)
	}
	state, err := statedir.Dir(e.getenv)
	if err != nil {
		return nil, err
	}
	eng, err := engine.New(engine.Config{RunsDir: dir, StateDir: state})
	if err != nil {
		return nil, fmt.Errorf("cannot open the run ledger of %s: %w", dir, err)
	}
	announceRebuilt(e, eng)
	return eng, nil
}

// announceRebuilt says, once, that the engine found its ledger missing or
// empty and rebuilt it from the run folders: the rows' timelines and the
// continuable sub-agents it held are gone.
func announceRebuilt(e env, eng *engine.Engine) {
	if n := eng.Rebuilt(); n > 0 {
		notice(e, "the ledger %s was missing or empty and was rebuilt from %d run %s; the runs' timelines before now are lost",
			eng.Ledger().Path(), n, human.Noun(n, "folder", "folders"))
	}
}

// ledgerRuns is `wfrun runs [--status S] [--name NAME] [--json]`: the
// runs of the ledger, newest first.
func ledgerRuns(f *runsOptions, positional []string, e env) int {
	if len(positional) > 0 {
		return usageFail(e, "runs takes only flags (--status, --name, --json, --runs-dir, --temporal); got %q", positional[0])
	}
	var err error
	if f.temporal, err = f.conn.resolve(f.temporal); err != nil {
		return usageFail(e, "%v", err)
	}
	if f.temporal != "" {
		if f.runsDir != "" {
			return usageFail(e, "--runs-dir and --temporal list different runs (this machine's runs folder, a Temporal namespace); give one of them")
		}
		return runsOnTemporal(f, e)
	}
	if f.namespace != "" || f.parent != "" || f.conn.given() {
		return usageFail(e, "--namespace, --parent and the connection flags (--api-key, --tls, ...) go with --temporal HOST:PORT (or --address, --profile); add it or drop them")
	}
	status := ledger.RunStatus(f.status)
	if f.status != "" && !status.Valid() {
		return usageFail(e, "--status %q is not a run status; use one of %s", f.status, statusList())
	}
	eng, err := openLedgerEngine(f, e)
	if err != nil {
		notice(e, "%v", err)
		return exitFailed
	}
	defer closeEngine(eng)
	runs, err := eng.Ledger().List(ledger.Filter{Status: status, Name: f.name})
	if err != nil {
		notice(e, "the run ledger: %v", err)
		return exitFailed
	}
	if f.asJSON {
		return printJSON(e, struct {
			Runs []ledger.Run `json:"runs"`
		}{runs}, exitCompleted)
	}
	if len(runs) == 0 {
		fmt.Fprintln(e.stdout, "No runs.")
		return exitCompleted
	}
	w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tNAME\tSTATUS\tAGENTS\tTOKENS\tCOST\tAGE")
	now := time.Now()
	for _, r := range runs {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Name, r.Status, agentsCell(r), human.Count(r.Usage.Tokens()),
			fmt.Sprintf("$%.4f", r.Usage.CostUSD), human.Age(now.Sub(r.CreatedAt)))
	}
	w.Flush()
	return exitCompleted
}

func statusList() string {
	var names []string
	for _, s := range ledger.RunStatuses() {
		names = append(names, string(s))
	}
	return strings.Join(names, ", ")
}

func agentsCell(r ledger.Run) string {
	if r.Agents.Replayed > 0 {
		return fmt.Sprintf("%d (%d replayed)", r.AgentsSpawned, r.Agents.Replayed)
	}
	return fmt.Sprint(r.AgentsSpawned)
}

// shown is what `wfrun show --json` prints.
type shown struct {
	Run      ledger.Run     `json:"run"`
	Retries  []string       `json:"retries"` // the runs that retry or resume it
	Children []ledger.Child `json:"children"`
	Timeline []ledger.Event `json:"timeline"`
}

// showRun is `wfrun show RUNID [--json]`: the run, its lineage, a tree
// of its children by phase (status, duration, tokens) and its timeline.
func showRun(f *runsOptions, positional []string, e env) int {
	if len(positional) != 1 {
		return usageFail(e, "show takes one run id (wfrun runs lists them): wfrun show RUNID [--json]")
	}
	eng, err := openLedgerEngine(f, e)
	if err != nil {
		notice(e, "%v", err)
		return exitFailed
	}
	defer closeEngine(eng)
	l := eng.Ledger()
	var s shown
	if s.Run, err = l.Get(positional[0]); err != nil {
		notice(e, "%v; wfrun runs lists the runs of %s", err, l.Path())
		return exitFailed
	}
	s.Children, err = l.Children(s.Run.ID)
	if err == nil {
		s.Timeline, err = l.Timeline(s.Run.ID)
	}
	var retries []ledger.Run
	if err == nil {
		retries, err = l.List(ledger.Filter{ParentRun: s.Run.ID})
	}
	if err != nil {
		notice(e, "the run ledger: %v", err)
		return exitFailed
	}
	s.Retries = []string{}
	for _, r := range retries {
		s.Retries = append(s.Retries, r.ID)
	}
	if f.asJSON {
		return printJSON(e, s, exitCompleted)
	}
	writeShown(e.stdout, s)
	return exitCompleted
}

// writeShown renders a run for a person: a header, the lineage, the
// children grouped by phase as a tree, and the timeline.
func writeShown(out io.Writer, s shown) {
	r := s.Run
	dur := ""
	if r.EndedAt != nil {
		dur = " · " + r.EndedAt.Sub(r.CreatedAt).Round(100*time.Millisecond).String()
	}
	fmt.Fprintf(out, "%s %q %s · %s agents · %s tokens · $%.4f%s\n", r.ID, r.Name, r.Status, agentsCell(r), human.Count(r.Usage.Tokens()), r.Usage.CostUSD, dur)
	fmt.Fprintf(out, "  owner %s · started %s", r.Owner, r.CreatedAt.Format(time.RFC3339))
	if r.Dir != "" {
		fmt.Fprintf(out, " · folder %s", r.Dir)
	}
	fmt.Fprintln(out)
	if r.ParentRun != "" {
		fmt.Fprintf(out, "  resumes %s\n", r.ParentRun)
	}
	if len(s.Retries) > 0 {
		fmt.Fprintf(out, "  retried or resumed as %s\n", strings.Join(s.Retries, ", "))
	}
	if r.Error != "" {
		fmt.Fprintf(out, "  %s: %s\n", r.ErrorCode, r.Error)
	}
	if len(s.Children) > 0 {
		fmt.Fprintln(out, "Agents")
		w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		phase := "\x00"
		for i, c := range s.Children {
			if c.Phase != phase {
				phase = c.Phase
				title := phase
				if title == "" {
					title = "(no phase)"
				}
				fmt.Fprintf(w, "  %s\t\t\t\t\t\n", title)
			}
			branch := "├─"
			if i == len(s.Children)-1 || s.Children[i+1].Phase != phase {
				branch = "└─"
			}
			note := ""
			if c.Replayed {
				note = "replayed"
			} else if c.Error != "" {
				note = human.FirstLine(c.Error, 80)
			}
			fmt.Fprintf(w, "  %s #%d %s\t%s\t%s\t%s tokens\t%s\n", branch, c.Seq, human.FirstLine(c.Label, 48), c.Status, childDuration(c), human.Count(c.Usage.Tokens()), note)
		}
		w.Flush()
	}
	if len(s.Timeline) > 0 {
		fmt.Fprintln(out, "Timeline")
		for _, ev := range s.Timeline {
			line := string(ev.Kind)
			if ev.Detail != "" {
				line += ": " + ev.Detail
			}
			fmt.Fprintf(out, "  %s  %s\n", ev.At.Format("2006-01-02 15:04:05"), line)
		}
	}
}

func childDuration(c ledger.Child) string {
	var meta struct {
		DurationMs *int64 `json:"durationMs"`
	}
	if json.Unmarshal(c.Metadata, &meta) != nil || meta.DurationMs == nil {
		return "-"
	}
	return (time.Duration(*meta.DurationMs) * time.Millisecond).Round(100 * time.Millisecond).String()
}

// stopRun is `wfrun stop RUNID [--reason TEXT]`: the stop verb. The
// run's process cancels it at its next heartbeat; stop waits for that (at
// most a lease) and prints the run's row.
func stopRun(f *runsOptions, positional []string, e env) int {
	if len(positional) != 1 {
		return usageFail(e, "stop takes one run id: wfrun stop RUNID [--reason TEXT]")
	}
	eng, err := openLedgerEngine(f, e)
	if err != nil {
		notice(e, "%v", err)
		return exitFailed
	}
	defer closeEngine(eng)
	id := positional[0]
	reason := f.reason
	if reason == "" {
		reason = "stopped with wfrun stop"
	}
	if _, err := eng.Stop(id, reason); err != nil {
		notice(e, "%v", err)
		return exitFailed
	}
	l := eng.Ledger()
	deadline := time.Now().Add(l.Lease() + time.Second)
	for {
		_, _ = eng.SweepRuns()
		r, err := l.Get(id)
		if err != nil {
			notice(e, "%v", err)
			return exitFailed
		}
		if r.Status != ledger.RunRunning {
			return printJSON(e, r, exitCompleted)
		}
		if time.Now().After(deadline) {
			notice(e, "run %s is still running: the stop is recorded, and its process carries it out at its next heartbeat", id)
			return printJSON(e, r, exitFailed)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// noteRun is `wfrun note RUNID TEXT`: the follow_up verb, a note on
// the run's timeline; its status stays.
func noteRun(f *runsOptions, positional []string, e env) int {
	if len(positional) != 2 {
		return usageFail(e, `note takes a run id and the note, in quotes: wfrun note RUNID "what to remember"`)
	}
	eng, err := openLedgerEngine(f, e)
	if err != nil {
		notice(e, "%v", err)
		return exitFailed
	}
	defer closeEngine(eng)
	if err := eng.Note(positional[0], positional[1]); err != nil {
		notice(e, "%v", err)
		return exitFailed
	}
	tl, _ := eng.Ledger().Timeline(positional[0])
	return printJSON(e, struct {
		RunID    string         `json:"runId"`
		Timeline []ledger.Event `json:"timeline"`
	}{positional[0], tl}, exitCompleted)
}
