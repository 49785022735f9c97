package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/wfrun/wfrun/internal/flagvalue"
	"github.com/wfrun/wfrun/internal/human"
)

// The command table, which the dispatch, the help, the hint after a typo
// and the test of the package doc read, so a command is added in one place.

// command is one entry of the table.
type command struct {
	name    string // the word after wfrun
	use     string // the invocation after "wfrun ", for the help
	summary string // what it does, for the help
	section string // the help's heading above it; "" for the first group
	// why, when set, says in a few words why the command takes fewer
	// flags than a script run; a refused flag's sentence carries it.
	why string
	// flags binds the command's own flags, an options struct of its own,
	// onto fs and returns the function that runs it once fs is parsed.
	flags func(fs *flag.FlagSet) runFunc
	// raw, when set, takes the arguments unparsed (wfrun temporal dev
	// hands them to another program).
	raw func(args []string, e env) int
	// subs, when set, are the commands under this one (wfrun temporal dev
	// and gc), each named "NAME WORD", out of the help's flag listing.
	subs []command
}

// runFunc runs a command whose flags are parsed, with its positional
// arguments, and returns the exit status.
type runFunc func(e env, positional []string) int

const (
	sectionDurable  = "Durable runs (docs/durability.md)"
	sectionTemporal = "Runs on Temporal (docs/scale-out.md)"
)

// commands is the table, in the order of the help. It is a function, not
// a variable, because the commands' help reads it back.
func commands() []command {
	const noRequest = "the model writes each script and passes its own meta and args"
	const savedRequest = "the run's folder holds its request, which the limit and provider flags override"
	return []command{
		{name: "run", use: "[run] SCRIPT.js|NAME [flags]", flags: runCmd,
			summary: "run a script, or the saved workflow NAME when no file NAME exists; print its result JSON on stdout"},
		{name: "check", use: "check SCRIPT.js|NAME [flags]", flags: checkCmd, why: "check runs nothing and keeps nothing",
			summary: "run every pre-check and execute nothing"},
		{name: "providers", use: "providers", flags: providersCmd,
			summary: "list the sub-agent providers and what they support"},
		{name: "doctor", use: "doctor [flags]", flags: doctorCmd,
			summary: "the sandbox layers this machine gives (Landlock, namespaces); exit 1 when sandboxed commands would be refused"},
		{name: "agents", use: "agents [flags]", flags: agentsCmd,
			summary: "list the personas (agentType) found and the persona files that failed to load; exit 1 when one failed"},
		{name: "workflows", use: "workflows [flags]", flags: workflowsCmd,
			summary: "list the saved workflows (workflow(name), wfrun NAME) and the files that failed to load; exit 1 when one failed"},
		{name: "tool", use: "tool", flags: toolCmd,
			summary: "print the tools' definitions (workflow, agent, the background and sub-agent tools) as JSON"},
		{name: "mcp", use: "mcp [flags]", flags: mcpCmd, why: noRequest,
			summary: "serve the tools to MCP clients (stdio, or --http); the limit flags become the defaults of every run the model starts (docs/tool.md)"},
		{name: "agent", use: `agent "TASK" [flags]`, flags: agentCmd, why: noRequest,
			summary: "a parent model (openai provider) that does TASK with the workflow, agent and sub-agent tools; prints its answer"},
		{name: "ralph", use: `ralph "OBJECTIVE" [flags]`, flags: ralphCmd, why: "its workflow is fixed",
			summary: "the Ralph loop: a fresh agent per round, each handing off to the next, until the objective is complete or blocked; prints the ending and the last handoff"},
		{name: "resume", use: "resume RUNID [flags]", flags: resumeCmd(verbResume), section: sectionDurable, why: savedRequest,
			summary: "a new run of RUNID's saved request that replays the agents RUNID finished, for free, and runs the rest"},
		{name: "retry", use: "retry RUNID [flags]", flags: resumeCmd(verbRetry), section: sectionDurable, why: savedRequest,
			summary: "a failed, cancelled or abandoned run again: a new run resumed from it, its child in the lineage"},
		{name: "continue", use: "continue RUNID [flags]", flags: resumeCmd(verbContinue), section: sectionDurable, why: savedRequest,
			summary: "an abandoned run (its process died) resumed in place"},
		{name: "runs", use: "runs [flags]", flags: runsCmd, section: sectionDurable,
			summary: "the runs of the ledger, newest first: id, name, status, agents, tokens, cost, age; with --temporal, the runs of a Temporal namespace"},
		{name: "show", use: "show RUNID [flags]", flags: showCmd, section: sectionDurable,
			summary: "a run, its lineage, its agents by phase (status, duration, tokens) and its timeline"},
		{name: "stop", use: "stop RUNID [flags]", flags: stopCmd, section: sectionDurable,
			summary: "cancel a live run, in whichever process runs it"},
		{name: "note", use: "note RUNID TEXT", flags: noteCmd, section: sectionDurable,
			summary: "a note on the run's timeline; its status stays"},
		{name: "ui", use: "ui [flags]", flags: uiCmd, section: sectionDurable, why: "it runs no script of its own: the page shows each run's events from its folder, and its retries and continues take the run's saved request",
			summary: "a local web page over the ledger: the runs, each run's timeline and agents, live, and the verbs as buttons (docs/ui.md)"},
		{name: "worker", use: "worker --temporal HOST:PORT [flags]", flags: workerCmd, section: sectionTemporal,
			why:     "every run brings its own request, and lives in the cluster's history, not in a runs folder",
			summary: "run workflows and their agents for the task queue, with the provider flags, until Ctrl-C; wfrun SCRIPT.js --temporal and wfrun mcp --temporal send runs there"},
		{name: "temporal", use: "temporal dev [--port N] [--db FILE] [--tls DIR] | gc [flags]", section: sectionTemporal,
			summary: "dev: a Temporal server on this machine (runs the wfrun-temporal program, built from engine/temporal/server); gc: delete the payloads that no history of the namespace refers to any more (wfrun temporal gc --help)",
			subs: []command{
				{name: "temporal dev", use: "temporal dev [--port N] [--db FILE] [--tls DIR]", raw: temporalDev},
				{name: "temporal gc", use: "temporal gc --temporal HOST:PORT [--payloads URL] [--min-age DURATION] [--dry-run] [--json]",
					flags: temporalGCCmd, why: "it only collects payloads",
					summary: "deletes the payloads of the store that no history the namespace still lists refers to, and that were written more than --min-age ago (docs/scale-out.md)"},
			}},
	}
}

// lookup returns the command named name.
func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// title is how messages name the command.
func (c command) title() string {
	if c.name == "run" {
		return "a script run"
	}
	return c.name
}

// word is how a list of commands names it: wfrun SCRIPT.js for run.
func (c command) word() string {
	if c.name == "run" {
		return "SCRIPT.js"
	}
	return c.name
}

// flagSet returns the command's flags, bound to a fresh options struct,
// and its run function.
func (c command) flagSet() (*flag.FlagSet, runFunc) {
	fs := flag.NewFlagSet("wfrun "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs, c.flags(fs)
}

// invoke parses args with the command's flags and runs it. Flags may come
// before and after the positional arguments; "--" ends the flags.
func (c command) invoke(args []string, e env) int {
	if c.raw != nil {
		return c.raw(args, e)
	}
	if c.subs != nil {
		var uses []string
		for _, s := range c.subs {
			if len(args) > 0 && s.name == c.name+" "+args[0] {
				return s.invoke(args[1:], e)
			}
			uses = append(uses, "wfrun "+s.use)
		}
		return usageFail(e, "%s takes a subcommand: %s", c.name, strings.Join(uses, ", or "))
	}
	fs, run := c.flagSet()
	var help bool
	fs.BoolVar(&help, "help", false, "")
	fs.BoolVar(&help, "h", false, "")
	positional, err := flagvalue.Parse(fs, args)
	var unknown *flagvalue.UnknownError
	if errors.As(err, &unknown) {
		err = c.unknownFlag(unknown.Name)
	}
	if err != nil {
		return usageFail(e, "%v", err)
	}
	if help {
		if c.name == "run" {
			fmt.Fprint(e.stdout, usage())
		} else {
			fmt.Fprint(e.stdout, c.usage())
		}
		return exitCompleted
	}
	return run(e, positional)
}

// unknownFlag says that c does not take --name, and which commands do.
func (c command) unknownFlag(name string) error {
	var owners []string
	for _, o := range commands() {
		if o.flags == nil {
			continue
		}
		if fs, _ := o.flagSet(); fs.Lookup(name) != nil {
			owners = append(owners, o.word())
		}
	}
	if len(owners) == 0 {
		if c.name == "run" {
			return fmt.Errorf("unknown flag --%s", name)
		}
		return fmt.Errorf("unknown flag --%s; wfrun %s --help lists the flags %s takes", name, c.name, c.name)
	}
	why := ""
	if c.why != "" {
		why = " (" + c.why + ")"
	}
	return fmt.Errorf("--%s does not apply to %s%s: it belongs to wfrun %s; drop it", name, c.title(), why, human.And(owners))
}

// commandsHint follows word, a script argument that is neither a file nor
// a command: the command it is a typo of, if any, and the commands.
func commandsHint(word string) string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	guess := ""
	if name := flagvalue.Closest(word, names); name != "" {
		guess = "did you mean wfrun " + name + "? "
	}
	return " (" + guess + "the commands are " + human.And(names) + "; a script is a .js file or the name of a saved workflow)"
}
