package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// options is a parsed command line. String-valued flags are kept raw and
// checked by validate, so that every complaint is a sentence of ours rather
// than the flag package's.
type options struct {
	positional []string

	args, meta, request, parent string
	provider, model             string
	fakeRules                   string
	workflowsDirs               stringList // --workflows-dir, repeatable
	maxAgents, concurrency      string
	timeout, agentTimeout       string
	budgetTokens                string
	maxMemory                   string
	maxRunFolder                string
	isolate                     string
	events                      string

	// Provider configuration.
	baseURL, mcpConfig, commandSpec, transcripts, prices string
	acpAgents                                            stringList // --acp-agent, repeatable
	acpConfig                                            string

	// Sub-agents' personas, models and workspace.
	agentsDirs     stringList
	modelMap       string
	workspace      string
	sandbox        string
	sandboxNetwork bool
	sandboxHide    stringList // --sandbox-hide, repeatable
	landlockOnly   bool       // --sandbox-landlock-only
	// Traces (every command that runs scripts).
	otlpEndpoint string
	// wfrun mcp and wfrun agent; wfrun ui's --addr.
	httpAddr, authToken string
	uiAddr              string
	printScript         bool

	// Durable runs: the runs folder, and wfrun ralph's round cap.
	runsDir   string
	maxRounds string

	// Runs on Temporal: the frontend, namespace, task queue, payload store.
	temporal, namespace, taskQueue, payloads string
	conn                                     connFlags

	help, version bool

	// set holds the names of the flags given explicitly.
	set map[string]bool

	// Parsed forms of the numeric flags (0 when not given).
	maxAgentsN, concurrencyN int
	maxRoundsN               int
	budgetTokensN            int64
	maxMemoryN               int64
	maxRunFolderN            int64
	timeoutD, agentTimeoutD  time.Duration
}

// command says which flags a command accepts.
type command int

const (
	cmdRun      command = iota
	cmdCheck            // wfrun check
	cmdMCP              // wfrun mcp
	cmdAgent            // wfrun agent
	cmdResume           // wfrun resume RUNID
	cmdRetry            // wfrun retry RUNID
	cmdContinue         // wfrun continue RUNID
	cmdRalph            // wfrun ralph "OBJECTIVE"
	cmdUI               // wfrun ui
	cmdWorker           // wfrun worker --temporal HOST:PORT
)

// String is the command's name in messages.
func (c command) String() string {
	switch c {
	case cmdCheck:
		return "check"
	case cmdMCP:
		return "mcp"
	case cmdAgent:
		return "agent"
	case cmdResume:
		return "resume"
	case cmdRetry:
		return "retry"
	case cmdContinue:
		return "continue"
	case cmdRalph:
		return "ralph"
	case cmdUI:
		return "ui"
	case cmdWorker:
		return "worker"
	}
	return "a script run"
}

// refusal says why cmd does not take the flag name, or "" when it does. A
// flag that only means something to another command is refused with a
// sentence rather than ignored.
func refusal(cmd command, name string) string {
	switch name {
	case "events", "otlp-endpoint":
		if cmd == cmdUI && name == "events" {
			return "--events does not apply to ui: every run it retries or continues writes its events to its run folder, which the page shows; drop it"
		}
		if cmd == cmdCheck {
			return fmt.Sprintf("--%s does not apply to check, which runs nothing; drop it", name)
		}
	case "http":
		if cmd != cmdMCP {
			return fmt.Sprintf("--http belongs to wfrun mcp, not to %s; drop it", cmd)
		}
	case "auth-token":
		if cmd != cmdMCP && cmd != cmdUI {
			return fmt.Sprintf("--auth-token belongs to wfrun mcp and wfrun ui, not to %s; drop it", cmd)
		}
	case "addr":
		if cmd != cmdUI {
			return fmt.Sprintf("--addr belongs to wfrun ui, not to %s; drop it", cmd)
		}
	case "print-script":
		if cmd != cmdAgent {
			return fmt.Sprintf("--print-script belongs to wfrun agent, not to %s; drop it", cmd)
		}
	case "temporal", "namespace", "task-queue", "payloads",
		"address", "api-key", "tls", "tls-cert-path", "tls-key-path", "tls-ca-path", "tls-server-name", "profile", "config-file":
		if cmd != cmdRun && cmd != cmdMCP && cmd != cmdWorker {
			return fmt.Sprintf("--%s does not apply to %s: runs on Temporal are started by wfrun SCRIPT.js and wfrun mcp and served by wfrun worker; drop it", name, cmd)
		}
	case "args", "meta", "request", "parent":
		if cmd == cmdUI {
			return fmt.Sprintf("--%s does not apply to ui, which runs no script of its own: its retries and continues take the run's saved request; drop it", name)
		}
		if cmd == cmdWorker {
			return fmt.Sprintf("--%s does not apply to worker: every run brings its own request; drop it", name)
		}
		if cmd == cmdMCP || cmd == cmdAgent {
			return fmt.Sprintf("--%s does not apply to %s: the model writes each script and passes its own meta and args; drop it", name, cmd)
		}
		if cmd == cmdRalph {
			return fmt.Sprintf("--%s does not apply to ralph, whose workflow is fixed: give the objective, --max-rounds and --budget-tokens; drop it", name)
		}
		if (cmd == cmdRetry || cmd == cmdContinue || cmd == cmdResume) && !(cmd == cmdResume && name == "args") {
			return fmt.Sprintf("--%s does not apply to %s: the run's folder holds its request (the limit and provider flags override it); drop it", name, cmd)
		}
	case "runs-dir":
		if cmd == cmdWorker {
			return "--runs-dir does not apply to worker: a run on Temporal lives in the cluster's history, not in a runs folder; drop it"
		}
		if cmd == cmdCheck {
			return "--runs-dir does not apply to check, which runs nothing and keeps no run; drop it"
		}
	case "max-rounds":
		if cmd != cmdRalph {
			return fmt.Sprintf("--max-rounds belongs to wfrun ralph, not to %s; drop it", cmd)
		}
	}
	return ""
}

// newFlagSet returns the flags of cmd, bound to o.
func newFlagSet(cmd command, o *options) *flag.FlagSet {
	fs := flag.NewFlagSet("wfrun", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	str := func(p *string, name string) {
		if refusal(cmd, name) != "" {
			return
		}
		fs.StringVar(p, name, "", "")
	}
	str(&o.args, "args")
	str(&o.meta, "meta")
	str(&o.request, "request")
	str(&o.parent, "parent")
	str(&o.provider, "provider")
	str(&o.model, "model")
	str(&o.fakeRules, "fake-rules")
	fs.Var(&o.workflowsDirs, "workflows-dir", "")
	str(&o.maxAgents, "max-agents")
	str(&o.concurrency, "concurrency")
	str(&o.timeout, "timeout")
	str(&o.agentTimeout, "agent-timeout")
	str(&o.budgetTokens, "budget-tokens")
	str(&o.maxMemory, "max-memory")
	str(&o.maxRunFolder, "max-run-folder")
	str(&o.isolate, "isolate")
	str(&o.events, "events")
	str(&o.otlpEndpoint, "otlp-endpoint")
	str(&o.baseURL, "base-url")
	str(&o.mcpConfig, "mcp-config")
	str(&o.commandSpec, "command-spec")
	fs.Var(&o.acpAgents, "acp-agent", "")
	str(&o.acpConfig, "acp-config")
	str(&o.transcripts, "transcripts")
	str(&o.prices, "prices")
	str(&o.modelMap, "model-map")
	str(&o.workspace, "workspace")
	str(&o.sandbox, "sandbox")
	fs.BoolVar(&o.sandboxNetwork, "sandbox-network", false, "")
	fs.Var(&o.sandboxHide, "sandbox-hide", "")
	fs.BoolVar(&o.landlockOnly, "sandbox-landlock-only", false, "")
	fs.Var(&o.agentsDirs, "agents-dir", "")
	str(&o.httpAddr, "http")
	str(&o.authToken, "auth-token")
	str(&o.uiAddr, "addr")
	str(&o.runsDir, "runs-dir")
	str(&o.maxRounds, "max-rounds")
	str(&o.temporal, "temporal")
	str(&o.namespace, "namespace")
	str(&o.taskQueue, "task-queue")
	str(&o.payloads, "payloads")
	if refusal(cmd, "address") == "" {
		o.conn.bind(fs)
	}
	if refusal(cmd, "print-script") == "" {
		fs.BoolVar(&o.printScript, "print-script", false, "")
	}
	fs.BoolVar(&o.help, "help", false, "")
	fs.BoolVar(&o.help, "h", false, "")
	if cmd == cmdRun {
		fs.BoolVar(&o.version, "version", false, "")
	}
	return fs
}

// parseFlags parses args for cmd. Flags may come before and after the
// positional arguments; "--" ends the flags.
func parseFlags(cmd command, args []string) (*options, error) {
	o := &options{set: map[string]bool{}}
	fs := newFlagSet(cmd, o)
	for {
		if err := fs.Parse(args); err != nil {
			return nil, flagError(cmd, err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			o.positional = append(o.positional, rest...)
			break
		}
		o.positional = append(o.positional, rest[0])
		args = rest[1:]
	}
	fs.Visit(func(f *flag.Flag) { o.set[f.Name] = true })
	if o.help || o.version {
		return o, nil
	}
	return o, o.validate()
}

// flagError rewrites the flag package's errors as sentences that say what
// to write instead.
func flagError(cmd command, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		name = "--" + strings.TrimLeft(name, "-")
		if why := refusal(cmd, strings.TrimPrefix(name, "--")); why != "" {
			return errors.New(why)
		}
		return fmt.Errorf("unknown flag %s", name)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		name = "--" + strings.TrimLeft(name, "-")
		return fmt.Errorf("%s needs a value: write %s VALUE or %s=VALUE", name, name, name)
	}
	return errors.New(msg)
}

// validate parses the numeric and duration flags.
func (o *options) validate() error {
	var err error
	if o.maxAgentsN, err = positiveInt("max-agents", o.maxAgents, "20"); err != nil {
		return err
	}
	if o.concurrencyN, err = positiveInt("concurrency", o.concurrency, "4"); err != nil {
		return err
	}
	if o.maxRoundsN, err = positiveInt("max-rounds", o.maxRounds, "10"); err != nil {
		return err
	}
	n, err := positiveInt("budget-tokens", o.budgetTokens, "200000")
	if err != nil {
		return err
	}
	o.budgetTokensN = int64(n)
	if o.maxMemoryN, err = byteSize("max-memory", o.maxMemory, "512MiB"); err != nil {
		return err
	}
	if o.maxRunFolderN, err = byteSize("max-run-folder", o.maxRunFolder, "1GiB"); err != nil {
		return err
	}
	switch o.isolate {
	case "", "none", "process":
	default:
		return fmt.Errorf("--isolate %q is not an isolation: use --isolate process (each run in a child process of its own) or --isolate none", o.isolate)
	}
	if o.timeoutD, err = positiveDuration("timeout", o.timeout, "10m"); err != nil {
		return err
	}
	if o.agentTimeoutD, err = positiveDuration("agent-timeout", o.agentTimeout, "90s"); err != nil {
		return err
	}
	for _, name := range []string{"provider", "model", "parent", "fake-rules", "workflows-dir", "request", "events", "args", "meta",
		"base-url", "mcp-config", "command-spec", "acp-config", "transcripts", "prices", "model-map", "workspace", "sandbox", "http", "auth-token",
		"otlp-endpoint", "runs-dir", "addr", "temporal", "namespace", "task-queue", "payloads"} {
		if o.set[name] && strings.TrimSpace(o.value(name)) == "" {
			return fmt.Errorf("--%s is empty; give it a value or leave it out", name)
		}
	}
	if o.temporal, err = o.conn.resolve(o.temporal); err != nil {
		return err
	}
	if o.temporal == "" {
		for _, name := range append([]string{"namespace", "task-queue", "payloads"}, connFlagNames...) {
			if o.set[name] {
				return fmt.Errorf("--%s goes with --temporal HOST:PORT (or --address, --profile), which names the Temporal server; add it or drop --%s", name, name)
			}
		}
	}
	for _, d := range o.agentsDirs {
		if strings.TrimSpace(d) == "" {
			return fmt.Errorf("--agents-dir is empty; give it a folder or leave it out")
		}
	}
	for _, d := range o.sandboxHide {
		if !filepath.IsAbs(d) {
			return fmt.Errorf("--sandbox-hide %q is not an absolute path; give the folder to hide from sandboxed commands as an absolute path", d)
		}
	}
	for _, d := range o.workflowsDirs {
		if strings.TrimSpace(d) == "" {
			return fmt.Errorf("--workflows-dir is empty; give it a folder or leave it out")
		}
	}
	return nil
}

// value returns the raw value of a string flag by name.
func (o *options) value(name string) string {
	switch name {
	case "provider":
		return o.provider
	case "model":
		return o.model
	case "parent":
		return o.parent
	case "fake-rules":
		return o.fakeRules
	case "workflows-dir":
		return strings.Join(o.workflowsDirs, ",")
	case "request":
		return o.request
	case "events":
		return o.events
	case "args":
		return o.args
	case "meta":
		return o.meta
	case "base-url":
		return o.baseURL
	case "mcp-config":
		return o.mcpConfig
	case "command-spec":
		return o.commandSpec
	case "acp-config":
		return o.acpConfig
	case "transcripts":
		return o.transcripts
	case "prices":
		return o.prices
	case "model-map":
		return o.modelMap
	case "workspace":
		return o.workspace
	case "sandbox":
		return o.sandbox
	case "http":
		return o.httpAddr
	case "auth-token":
		return o.authToken
	case "addr":
		return o.uiAddr
	case "otlp-endpoint":
		return o.otlpEndpoint
	case "runs-dir":
		return o.runsDir
	case "temporal":
		return o.temporal
	case "namespace":
		return o.namespace
	case "task-queue":
		return o.taskQueue
	case "payloads":
		return o.payloads
	}
	return ""
}

func positiveInt(name, raw, example string) (int, error) {
	if raw == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(raw))
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("--%s: %q is not a positive whole number; write one like --%s %s", name, raw, name, example)
	}
	return n, nil
}

// byteSize parses a size: a whole number of bytes, or one with a unit (KiB,
// MiB, GiB, or K, M, G, KB, MB, GB as their binary multiples).
func byteSize(name, raw, example string) (int64, error) {
	if raw == "" {
		return 0, nil
	}
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
	if raw == "" {
		return 0, nil
	}
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
