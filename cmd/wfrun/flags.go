package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The flag groups that several commands share, each bound onto a command's
// flag set by a small function, so that a flag means and says the same
// everywhere it is taken. Every value is checked as it is parsed, so that a
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
	text(fs, &f.request, "request", "a JSON WorkflowStartRequest in `FILE|-`, with some of the fields "+strings.Join(requestFields(), ", ")+
		"; flags given explicitly override its fields, and SCRIPT.js its script")
	text(fs, &f.parent, "parent", "the agent, by `NAME`, that owns the run's children (default \"cli\")")
}

func bindArgs(fs *flag.FlagSet, p *string) {
	text(fs, p, "args", "the script's args global, `JSON|@FILE` (@- reads it from stdin):\n"+
		`  --args '{"topic":"vector databases"}'  or  --args @args.json`)
}

// agentFlags configure the sub-agents' providers, personas and workspace.
type agentFlags struct {
	provider, model, fakeRules string
	workflowsDirs              []string
	baseURL, mcpConfig         string
	commandSpec                string
	acpAgents                  []string
	acpConfig                  string
	transcripts, prices        string
	agentsDirs                 []string
	modelMap                   string
	workspace                  string
	sandboxFlags
}

func (f *agentFlags) bind(fs *flag.FlagSet) {
	text(fs, &f.provider, "provider", "the provider, by `NAME`, that runs every agent (see wfrun providers). Default: openai when OPENAI_API_KEY, OPENAI_BASE_URL or --base-url is set, else the offline fake provider, with a notice on stderr")
	text(fs, &f.model, "model", "the default model, by `NAME`, of the run's agents, in place of the meta's model (a phase's or a call's own model still wins)")
	text(fs, &f.fakeRules, "fake-rules", "canned outcomes for the fake provider in `FILE` (implies --provider fake unless a provider is named), first match wins:\n"+
		`  {"rules": [{"match": "^Audit", "reply": "…", "delayMs": 50,`+"\n"+
		`              "fail": "…", "timeout": false,`+"\n"+
		`              "usage": {"inputTokens": 10, "outputTokens": 5}}]}`)
	bindWorkflowsDir(fs, &f.workflowsDirs)
	text(fs, &f.baseURL, "base-url", "the OpenAI-compatible `URL` of the openai provider (default OPENAI_BASE_URL, else api.openai.com with OPENAI_API_KEY); its default model is --model or WFRUN_MODEL")
	text(fs, &f.mcpConfig, "mcp-config", "MCP servers in `FILE` whose tools the openai provider's agents may use, as mcp__SERVER__TOOL:\n"+
		`  {"mcpServers": {"NAME": {"command": "…", "args": […]}`+"\n"+
		`                | {"url": "http://…"}}}`)
	text(fs, &f.commandSpec, "command-spec", "register an external agent CLI as a provider, its spec in `FILE` (named by its \"name\", default \"command\"; docs/providers.md)")
	list(fs, &f.acpAgents, "acp-agent", "register `'NAME=CMD ARGS…'`, an agent that speaks the Agent Client Protocol on its stdio, as the provider acp:NAME; repeatable:\n"+
		"  --acp-agent 'claude=npx -y @zed-industries/claude-code-acp'", nil)
	text(fs, &f.acpConfig, "acp-config", "the ACP agents of `FILE`, each a provider acp:NAME:\n"+
		`  {"agents": {"NAME": {"command": "…", "args": […],`+"\n"+
		`                       "env": {…}, "passEnv": […]}}}`)
	text(fs, &f.transcripts, "transcripts", "write each openai agent's conversation to `DIR`/AGENT_ID.jsonl")
	text(fs, &f.prices, "prices", "USD per million tokens by model, in `FILE`, over the built-in table:\n"+
		`  {"my-model": {"input": 0.5, "output": 1.5}}`)
	bindAgentsDir(fs, &f.agentsDirs)
	text(fs, &f.modelMap, "model-map", "what model aliases mean at the endpoint, `MAP|@FILE`:\n"+
		"  --model-map haiku=gpt-4o-mini,sonnet=gpt-4.1,opus=o3\n"+
		`or a JSON file {"sonnet": {"model": "…", "contextWindow": N}}; an unmapped alias falls back to the run's model, with a note`)
	bindWorkspace(fs, &f.workspace)
	f.sandboxFlags.bind(fs)
}

func bindWorkflowsDir(fs *flag.FlagSet, p *[]string) {
	list(fs, p, "workflows-dir", "a `DIR` where workflow(name) finds saved workflows (NAME.js) first; repeatable. Then WORKSPACE/.claude/workflows, WORKSPACE/.wfrun/workflows and ~/.claude/workflows", nil)
}

func bindAgentsDir(fs *flag.FlagSet, p *[]string) {
	list(fs, p, "agents-dir", "a `DIR` of persona files (Claude Code agent definitions, NAME.md) that agentType may name; repeatable, searched before WORKSPACE/.claude/agents, WORKSPACE/.wfrun/agents and ~/.claude/agents; the first file to define a name wins", nil)
}

func bindWorkspace(fs *flag.FlagSet, p *string) {
	text(fs, p, "workspace", "the `DIR` the agents work in (default the current folder): their tools (Read, Write, Edit, Glob, Grep, Bash) reach no path outside it, and isolation: 'worktree' makes a git worktree of it for the agent")
}

// sandboxFlags say what the agents' commands may do.
type sandboxFlags struct {
	sandbox        string
	sandboxNetwork bool
	sandboxHide    []string
	landlockOnly   bool
}

func (f *sandboxFlags) bind(fs *flag.FlagSet) {
	text(fs, &f.sandbox, "sandbox", "what the agents' tools may do, enforced by the kernel (namespaces and Landlock) for every command they run; the `MODE` is\n"+
		"  read-only           read anywhere, write nowhere\n"+
		"  workspace-write     write in the workspace and a temp\n"+
		"                      folder (the default)\n"+
		"  danger-full-access  no OS sandbox at all: commands\n"+
		"                      run with all of your rights\n"+
		"A persona may narrow it (permissionMode: plan), never widen it")
	bindSandboxNetwork(fs, &f.sandboxNetwork)
	list(fs, &f.sandboxHide, "sandbox-hide", "a folder, its absolute `PATH`, that every sandboxed command sees empty; repeatable (wfrun's state folder is always hidden)", func(v string) error {
		if !filepath.IsAbs(v) {
			return fmt.Errorf("--sandbox-hide %q is not an absolute path; give the folder to hide from sandboxed commands as an absolute path", v)
		}
		return nil
	})
	bindLandlockOnly(fs, &f.landlockOnly)
}

func bindSandboxNetwork(fs *flag.FlagSet, p *bool) {
	fs.BoolVar(p, "sandbox-network", false, "let sandboxed commands open TCP connections (default: refused)")
}

func bindLandlockOnly(fs *flag.FlagSet, p *bool) {
	fs.BoolVar(p, "sandbox-landlock-only", false, "on a machine without user namespaces, run sandboxed commands under Landlock alone (weaker: no PID namespace, no protected paths) instead of refusing them")
}

// limitFlags bound a run; on mcp, agent, ui and worker they are the
// defaults of every run.
type limitFlags struct {
	maxAgentsN, concurrencyN                 int
	budgetTokensN, maxMemoryN, maxRunFolderN int64
	timeoutD, agentTimeoutD                  time.Duration
	isolate                                  string
}

func (f *limitFlags) bind(fs *flag.FlagSet) {
	count(fs, &f.maxAgentsN, "max-agents", "20", "at most `N` agent() calls in the run (default 1000; a request can lower the ceiling, never raise it)")
	count(fs, &f.concurrencyN, "concurrency", "4", "at most `N` agents running at once (default 16)")
	duration(fs, &f.timeoutD, "timeout", "10m", "the run's deadline as a Go `DURATION`: 90s, 5m, 1h30m (default 1h); past it the run ends with TIMEOUT")
	duration(fs, &f.agentTimeoutD, "agent-timeout", "90s", "each agent's deadline, a Go `DURATION` (default none)")
	fs.Var(valueOf("budget-tokens", func(s string) (err error) {
		n, err := positiveInt("budget-tokens", s, "200000")
		f.budgetTokensN = int64(n)
		return err
	}), "budget-tokens", "the run's budget of `N` tokens; agent() past it is BUDGET_EXHAUSTED")
	size(fs, &f.maxMemoryN, "max-memory", "512MiB", "the run's memory budget, `SIZE` (default 256MiB; 512MiB, 1GiB, or bytes): builtins that would allocate past it, and a script that grows the heap past it, end the run with RESOURCE_LIMIT")
	size(fs, &f.maxRunFolderN, "max-run-folder", "1GiB", "the `SIZE` budget of a kept run's folder, its events.jsonl and journal.jsonl together (default 256MiB); a run that would write past it ends with RESOURCE_LIMIT, and can be resumed with a larger budget")
	fs.Var(valueOf("isolate", func(s string) error {
		if s != "none" && s != "process" {
			return fmt.Errorf("--isolate %q is not an isolation: use --isolate process (each run in a child process of its own) or --isolate none", s)
		}
		f.isolate = s
		return nil
	}), "isolate", "the isolation `MODE`. process (the default): run the script in a child process of its own, with an OS memory limit and no file system, so that a script that crashes or exhausts its VM ends only its run (a few ms per run); none: in wfrun's process. A resumed, retried or continued run keeps none if it was started with it")
}

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

// value is a flag whose text parse checks as it is given; an empty value
// is refused with a sentence.
type value func(string) error

func (v value) Set(s string) error { return v(s) }
func (v value) String() string     { return "" }

func valueOf(name string, parse func(string) error) value {
	return func(s string) error {
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("--%s is empty; give it a value or leave it out", name)
		}
		return parse(s)
	}
}

// text binds a string flag that may not be empty.
func text(fs *flag.FlagSet, p *string, name, usage string) {
	fs.Var(valueOf(name, func(s string) error { *p = s; return nil }), name, usage)
}

// list binds a repeatable string flag; check, when set, vets each value.
func list(fs *flag.FlagSet, p *[]string, name, usage string, check func(string) error) {
	fs.Var(valueOf(name, func(s string) error {
		if check != nil {
			if err := check(s); err != nil {
				return err
			}
		}
		*p = append(*p, s)
		return nil
	}), name, usage)
}

func count(fs *flag.FlagSet, p *int, name, example, usage string) {
	fs.Var(valueOf(name, func(s string) (err error) { *p, err = positiveInt(name, s, example); return err }), name, usage)
}

func size(fs *flag.FlagSet, p *int64, name, example, usage string) {
	fs.Var(valueOf(name, func(s string) (err error) { *p, err = byteSize(name, s, example); return err }), name, usage)
}

func duration(fs *flag.FlagSet, p *time.Duration, name, example, usage string) {
	fs.Var(valueOf(name, func(s string) (err error) { *p, err = positiveDuration(name, s, example); return err }), name, usage)
}

// given returns the names of the flags set explicitly in fs.
func given(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

func positiveInt(name, raw, example string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(raw))
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("--%s: %q is not a positive whole number; write one like --%s %s", name, raw, name, example)
	}
	return n, nil
}

// byteSize parses a size: a whole number of bytes, or one with a unit (KiB,
// MiB, GiB, or K, M, G, KB, MB, GB as their binary multiples).
func byteSize(name, raw, example string) (int64, error) {
	s := strings.TrimSpace(raw)
	i := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	num, unit := s, ""
	if i >= 0 {
		num, unit = s[:i], strings.ToUpper(strings.TrimSpace(s[i:]))
	}
	n, err := strconv.ParseInt(num, 10, 64)
	shift, known := map[string]uint{"": 0, "B": 0, "K": 10, "KB": 10, "KIB": 10, "M": 20, "MB": 20, "MIB": 20, "G": 30, "GB": 30, "GIB": 30}[unit]
	if err != nil || !known || n <= 0 || n > (1<<62)>>shift {
		return 0, fmt.Errorf("--%s: %q is not a size; write bytes or a number with a unit, like --%s %s or 1GiB", name, raw, name, example)
	}
	return n << shift, nil
}

func positiveDuration(name, raw, example string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(raw))
	if err != nil {
		hint := ""
		if _, numErr := strconv.Atoi(strings.TrimSpace(raw)); numErr == nil {
			hint = " (a duration needs a unit)"
		}
		return 0, fmt.Errorf("--%s: %q is not a duration%s; write a Go duration like --%s %s, 90s or 1h30m", name, raw, hint, name, example)
	}
	if d <= 0 {
		return 0, fmt.Errorf("--%s: %s is not positive; write a duration like --%s %s", name, raw, name, example)
	}
	return d, nil
}

// millis converts a positive duration to whole milliseconds, rounding up so
// that a sub-millisecond value does not become "the default".
func millis(d time.Duration) int64 {
	return int64((d + time.Millisecond - 1) / time.Millisecond)
}
