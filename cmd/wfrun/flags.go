package main

import (
	"flag"
	"strings"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/setup"
	"github.com/wfrun/wfrun/internal/flagvalue"
)

// The flag groups that several commands share, each bound onto a command's
// flag set by one function, so that a flag means and says the same
// everywhere it is taken. The groups that configure a package are bound by
// that package, so that an embedder with a flag set takes the same flags.
// Every value is checked as it is parsed (internal/flagvalue), so that a
// bad one is a sentence of ours rather than the flag package's. A help text
// names its value in backquotes (flag.UnquoteUsage); usage.go wraps it.

// options are the flags of the commands that run scripts, as the readers
// of an invocation take them (request.go). Each command binds the groups
// it takes; the others stay zero, which means their defaults.
type options struct {
	positional []string
	// set holds the names of the flags given explicitly.
	set map[string]bool

	inputFlags
	agentFlags
	limitFlags
	events       string // --events
	otlpEndpoint string // --otlp-endpoint
	runsDir      string // --runs-dir
}

// inputFlags are what a script run reads besides its script.
type inputFlags struct {
	args, meta, request, parent string
}

func (f *inputFlags) bind(fs *flag.FlagSet) {
	bindArgs(fs, &f.args)
	text(fs, &f.meta, "meta", "the workflow's meta, `JSON|@FILE`, for scripts without export const meta:\n"+
		`  --meta '{"name":"research","description":"research then write"}'`+"\n"+
		"A script with no meta anywhere is named after its file, and a notice on stderr says so")
	text(fs, &f.request, "request", "a JSON WorkflowStartRequest in `FILE|-`, with some of the fields "+strings.Join(setup.RequestFields(), ", ")+
		"; flags given explicitly override its fields, and SCRIPT.js its script")
	text(fs, &f.parent, "parent", "the agent, by `NAME`, that owns the run's children (default \"cli\")")
}

func bindArgs(fs *flag.FlagSet, p *string) {
	text(fs, p, "args", "the script's args global, `JSON|@FILE` (@- reads it from stdin):\n"+
		`  --args '{"topic":"vector databases"}'  or  --args @args.json`)
}

// agentFlags configure the sub-agents' providers, personas, workspace and
// sandbox; limitFlags bound a run, and on mcp, agent, ui and worker they
// are the defaults of every run. Their packages bind them, with their help.
type (
	agentFlags = setup.Flags
	limitFlags = engine.LimitFlags
)

// The binders of a checked value, and the flags given, under short names.
var (
	text  = flagvalue.Text
	count = flagvalue.Count[int]
	given = flagvalue.Given
)

func bindEvents(fs *flag.FlagSet, p *string) {
	text(fs, p, "events", "write every event as a JSON line to `FILE|-` (-: stderr): run.start, phase, log, agent.start, agent.end, run.end")
}

func bindOTLP(fs *flag.FlagSet, p *string) {
	text(fs, p, "otlp-endpoint", "export the run as OpenTelemetry traces over OTLP/HTTP to a collector at `URL` (http://localhost:4318); without it, traces go where OTEL_EXPORTER_OTLP_ENDPOINT says, and nowhere when that is unset (docs/observability.md)")
}

func bindRunsDir(fs *flag.FlagSet, p *string) {
	text(fs, p, "runs-dir", "the `DIR` where runs are kept: a folder per run (request, script, events, journal, result) and the run ledger DIR/ledger.db (default $WFRUN_RUNS_DIR, else .wfrun/runs). The runs' keys are in $WFRUN_STATE_DIR (else ~/.local/state/wfrun), never in DIR")
}

func bindJSON(fs *flag.FlagSet, p *bool) {
	fs.BoolVar(p, "json", false, "print JSON instead of a table")
}
