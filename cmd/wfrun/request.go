package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/wfrun/wfrun/agentapi/acp"
	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/agentapi/modelmap"
	"github.com/wfrun/wfrun/agentapi/persona"
	"github.com/wfrun/wfrun/agentapi/workspace"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/trace"
	"github.com/wfrun/wfrun/internal/statedir"
)

// defaultParent owns the children of a run started from the command line.
const defaultParent = "cli"

// invocation is a command line resolved into what the engine needs: the
// request, the fake provider's rules and the workflows folder.
type invocation struct {
	req engine.WorkflowStartRequest
	// scriptFile is the script's path as given ("-" for stdin), for notices.
	scriptFile string
	// explicitProvider is true when --provider or the request named one.
	explicitProvider bool
	fakeRules        *fake.Rules
	workflowsDirs    []string // --workflows-dir, in order
	// savedName is the saved workflow the script argument names (wfrun
	// NAME with no such file), resolved once the workspace is known.
	savedName string
	providers providerFlags
	// personas are what agentType may name, for every provider of the run.
	personas *persona.Set
	// engineConfig, when set, adjusts the engine's Config (wfrun mcp and
	// wfrun agent turn the limit flags into the engine's defaults).
	engineConfig func(*engine.Config)
	// tracing says where traces go (--otlp-endpoint, the OTEL_* variables).
	tracing trace.Options
	// runsDir keeps the runs (--runs-dir, $WFRUN_RUNS_DIR, .wfrun/runs);
	// "" for a command that runs nothing (check).
	runsDir string
}

// usageError is a bad invocation (exit 2): something wfrun could not read
// or a command line it could not parse.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// precheck is content that was read but fails a check (exit 1, rendered as
// a result): the same kind of error the engine's pre-checks return.
func precheck(code engine.ErrorCode, format string, args ...any) error {
	return &engine.Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// loadInvocation reads every file and inline value the options name and
// builds the request. Flags given explicitly override the fields of
// --request. It returns a *usageError or an *engine.Error.
func loadInvocation(o *options, e env) (*invocation, error) {
	return readInvocation(o, e, readRequest, readScript, readInputs, applyRequestFlags, readFakeRules, readWorkflowsDir)
}

// readInvocation builds an invocation by steps, which share stdin, then
// reads what every command that runs scripts takes from its flags and
// environment besides the request: the providers and their personas,
// where traces go and the runs folder.
func readInvocation(o *options, e env, steps ...func(*invocation, *options, *stdinGuard) error) (*invocation, error) {
	in := &invocation{}
	stdin := &stdinGuard{r: e.stdin}
	for _, step := range steps {
		if err := step(in, o, stdin); err != nil {
			return nil, err
		}
	}
	var err error
	if in.providers, err = providerFlagsOf(o, e); err != nil {
		return nil, err
	}
	in.personas = in.providers.personas
	if err := readSavedWorkflow(in, e); err != nil {
		return nil, err
	}
	if in.tracing, err = tracingOf(o, e); err != nil {
		return nil, err
	}
	in.runsDir = runsDirOf(o, e)
	return in, nil
}

// providerFlagsOf collects the provider settings of the command line: the
// endpoint and files, the personas (--agents-dir, the workspace's folders,
// ~/.claude/agents), the workspace and sandbox, and --model-map.
func providerFlagsOf(o *options, e env) (providerFlags, error) {
	pf := providerFlags{model: o.Model, baseURL: o.BaseURL, mcpConfig: o.MCPConfig,
		commandSpec: o.CommandSpec, transcripts: o.Transcripts, prices: o.Prices,
		acpAgents: o.ACPAgents, acpConfig: o.ACPConfig}
	for _, a := range o.ACPAgents {
		if _, _, err := acp.ParseAgentFlag(a); err != nil {
			return pf, usagef("%v", err)
		}
	}
	set, err := loadPersonas(o.AgentsDirs, o.Workspace, e)
	if err != nil {
		return pf, usagef("%v", err)
	}
	pf.personas = set
	mode := workspace.WorkspaceWrite
	if o.Sandbox != "" {
		if mode, err = workspace.ParseMode(o.Sandbox); err != nil {
			return pf, usagef("--sandbox: %v", err)
		}
	}
	ws, err := workspaceDir(o.Workspace)
	if err != nil {
		return pf, usagef("%v", err)
	}
	// wfrun's state folder holds every run's journal key: no sandboxed
	// command may read it, whatever --sandbox-hide says.
	hide := slices.Clone(o.SandboxHide)
	if state, err := statedir.Dir(e.getenv); err == nil {
		hide = append(hide, state)
	}
	pf.workspace = workspace.Config{Root: ws, Mode: mode, Network: o.SandboxNetwork,
		Hide: hide, LandlockOnly: o.LandlockOnly}
	if o.ModelMap == "" {
		return pf, nil
	}
	if file, ok := strings.CutPrefix(o.ModelMap, "@"); ok {
		pf.models, err = modelmap.Load(file)
	} else {
		pf.models, err = modelmap.ParseFlag(o.ModelMap)
	}
	if err != nil {
		return pf, usagef("--model-map: %v", err)
	}
	return pf, nil
}

// readRequest decodes --request, refusing unknown fields.
func readRequest(in *invocation, o *options, stdin *stdinGuard) error {
	if o.request == "" {
		return nil
	}
	data, err := stdin.readFile(o.request, "--request")
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in.req); err != nil {
		return precheck(engine.CodeInvalidRequest,
			"--request %s: not a WorkflowStartRequest (%v); write a JSON object with some of the fields %s",
			o.request, err, strings.Join(requestFields(), ", "))
	}
	return nil
}

// requestFields are the JSON names of a request's fields, read from the
// type so that the hint never falls behind it.
func requestFields() []string {
	t := reflect.TypeFor[engine.WorkflowStartRequest]()
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.IsExported() && name != "-" && name != "" {
			names = append(names, name)
		}
	}
	return names
}

// readScript reads the positional script file (or stdin for "-"); without
// one, --request must carry the script.
func readScript(in *invocation, o *options, stdin *stdinGuard) error {
	switch len(o.positional) {
	case 0:
		if in.req.Script == "" {
			return usagef("no script given: write wfrun SCRIPT.js [flags], or pass a --request whose script is set")
		}
		if in.req.ScriptName == "" {
			in.req.ScriptName = "request.js"
		}
		in.scriptFile = in.req.ScriptName
	case 1:
		path := o.positional[0]
		if isSavedWorkflowRef(path) {
			in.savedName = path
			return nil
		}
		src, err := stdin.readFile(path, "the script")
		if err != nil {
			return err
		}
		in.req.Script = string(src)
		in.req.ScriptName = filepath.Base(path)
		if path == "-" {
			in.req.ScriptName = "stdin.js"
		}
		in.scriptFile = path
	default:
		hint := ""
		if strings.HasPrefix(strings.TrimSpace(o.positional[1]), "{") {
			hint = "; to pass args write --args '" + o.positional[1] + "'"
		}
		return usagef("one script at a time: got %s%s", strings.Join(o.positional, ", "), hint)
	}
	return nil
}

// readInputs reads --args and --meta, inline JSON or @FILE.
func readInputs(in *invocation, o *options, stdin *stdinGuard) error {
	if o.args != "" {
		data, err := jsonValue(stdin, "args", o.args, engine.CodeInvalidRequest, `{"topic":"…"}`)
		if err != nil {
			return err
		}
		in.req.Args = data
	}
	if o.meta != "" {
		data, err := jsonValue(stdin, "meta", o.meta, engine.CodeMetaInvalid, `{"name":"my-workflow","description":"what it does"}`)
		if err != nil {
			return err
		}
		in.req.Meta = data
	}
	return nil
}

// applyRequestFlags lets the flags that name request fields override them.
func applyRequestFlags(in *invocation, o *options, _ *stdinGuard) error {
	if o.Provider != "" {
		in.req.SubagentProvider = o.Provider
	}
	in.explicitProvider = in.req.SubagentProvider != ""
	if o.parent != "" {
		in.req.Parent = o.parent
	}
	if in.req.Parent == "" {
		in.req.Parent = defaultParent
	}
	if o.Model != "" {
		in.req.Model = o.Model
	}
	o.limitFlags.Apply(&in.req)
	return nil
}

// readFakeRules reads --fake-rules, which also selects the fake provider
// when nothing else names one.
func readFakeRules(in *invocation, o *options, stdin *stdinGuard) error {
	if o.FakeRules == "" {
		return nil
	}
	data, err := stdin.readFile(o.FakeRules, "--fake-rules")
	if err != nil {
		return err
	}
	rules, err := fake.Parse(data)
	if err != nil {
		return precheck(engine.CodeInvalidRequest, "--fake-rules %s: %v", o.FakeRules, err)
	}
	in.fakeRules = rules
	if in.req.SubagentProvider == "" {
		// Rules only mean something to the fake provider: asking for
		// them is asking for it, whatever the environment configures.
		in.req.SubagentProvider = engine.DefaultProvider
		in.explicitProvider = true
	}
	return nil
}

// readWorkflowsDir checks that every --workflows-dir is a folder.
func readWorkflowsDir(in *invocation, o *options, _ *stdinGuard) error {
	for _, dir := range o.WorkflowsDirs {
		st, err := os.Stat(dir)
		if err != nil {
			return usagef("--workflows-dir: %v; name an existing folder of saved NAME.js workflows", err)
		}
		if !st.IsDir() {
			return usagef("--workflows-dir: %s is a file; name the folder that holds the saved NAME.js workflows", dir)
		}
		in.workflowsDirs = append(in.workflowsDirs, dir)
	}
	return nil
}

// workflowsConfig sets where the engine finds saved workflows: every
// --workflows-dir, then the workspace's .claude/workflows and
// .wfrun/workflows, then ~/.claude/workflows, as personas are found; and
// the workspace that scriptPath resolves in.
func workflowsConfig(cfg *engine.Config, in *invocation, e env) {
	ws := in.providers.workspace.Root
	cfg.WorkflowsDirs = engine.WorkflowSearchDirs(in.workflowsDirs, ws, e.getenv("HOME"))
	cfg.Workspace = ws
}

// jsonValue reads a JSON|@FILE flag and checks that it is JSON.
func jsonValue(stdin *stdinGuard, name, raw string, code engine.ErrorCode, example string) (json.RawMessage, error) {
	data := []byte(raw)
	if file, ok := strings.CutPrefix(raw, "@"); ok {
		var err error
		if data, err = stdin.readFile(file, "--"+name+" @"+file); err != nil {
			return nil, err
		}
	}
	data = bytes.TrimSpace(data)
	var v json.RawMessage
	if err := json.Unmarshal(data, &v); err != nil {
		if strings.HasPrefix(raw, "@") {
			return nil, precheck(code, "--%s %s: not JSON (%v); write one JSON value such as %s in the file", name, raw, err, example)
		}
		return nil, precheck(code, "--%s: not JSON (%v); pass JSON like --%s '%s' or @file.json", name, err, name, example)
	}
	return v, nil
}

// stdinGuard lets exactly one input be read from stdin ("-" or "@-").
type stdinGuard struct {
	r    io.Reader
	used string
}

// readFile reads path, or stdin for "-"; what names the input in messages.
func (g *stdinGuard) readFile(path, what string) ([]byte, error) {
	if path == "-" {
		if g.used != "" {
			return nil, usagef("%s and %s both read stdin; put one of them in a file", g.used, what)
		}
		g.used = what
		if g.r == nil {
			return nil, usagef("%s: stdin is not available", what)
		}
		data, err := io.ReadAll(g.r)
		if err != nil {
			return nil, usagef("%s: cannot read stdin: %v", what, err)
		}
		return data, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		hint := ""
		if errors.Is(err, os.ErrNotExist) && what == "the script" && filepath.Ext(path) == "" {
			hint = commandsHint(path)
		}
		return nil, usagef("cannot read %s: %v%s", what, pathError(err), hint)
	}
	return data, nil
}

// pathError drops the Go operation name from an *os.PathError ("open x: no
// such file" becomes "x: no such file").
func pathError(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Path + ": " + pe.Err.Error()
	}
	return err.Error()
}
