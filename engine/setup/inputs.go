package setup

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/wfrun/wfrun/agentapi/acp"
	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/agentapi/modelmap"
	"github.com/wfrun/wfrun/agentapi/persona"
	"github.com/wfrun/wfrun/agentapi/workspace"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/journal"
	"github.com/wfrun/wfrun/engine/trace"
	"github.com/wfrun/wfrun/internal/statedir"
	"github.com/wfrun/wfrun/internal/strictjson"
	"github.com/wfrun/wfrun/internal/wferr"
)

// DefaultRunsDir is where runs are kept when Inputs.RunsDir and
// $WFRUN_RUNS_DIR name no folder: a folder per run, and the ledger in it.
const DefaultRunsDir = ".wfrun/runs"

// Inputs are a run's inputs as a person gives them: where the script,
// the args and the meta come from, the request fields set one by one,
// the provider settings, and where traces and runs go. The command line
// fills it from its flags; an embedder fills it by hand. Load, LoadServer
// and LoadResume read it into an Invocation.
type Inputs struct {
	// Script is the script's file, "-" for Stdin, or the name of a saved
	// workflow (a workflow name, not ending in .js, that no file has);
	// "" when Request carries the script.
	Script string
	// Request is a file ("-" for Stdin) holding a JSON
	// engine.WorkflowStartRequest, whose unknown fields are refused. The
	// other inputs override its fields.
	Request string
	// Args and Meta are a JSON value each, or @FILE (@- for Stdin).
	Args, Meta string
	// Fields are request fields that override Request's when set:
	// SubagentProvider, Parent, Model, the limits, Isolate and the
	// timeouts. The others are ignored.
	Fields engine.WorkflowStartRequest
	// DefaultParent owns the children of a request that names no Parent.
	DefaultParent string
	// FakeRules is a file ("-" for Stdin) of the fake provider's rules;
	// it asks for the fake provider when nothing names a provider.
	FakeRules string
	// WorkflowsDirs are searched first for saved workflows, before the
	// workspace's .claude/workflows and .wfrun/workflows and
	// ~/.claude/workflows; each must be a folder.
	WorkflowsDirs []string

	// Providers are the provider settings. Load fills its Personas,
	// Models and Workspace from the fields below, and Open its Provider
	// and WithTools; Getenv reads the environment of every input (nil:
	// os.Getenv).
	Providers Options
	// AgentsDirs are searched first for personas, before the
	// workspace's .claude/agents and .wfrun/agents and ~/.claude/agents.
	AgentsDirs []string
	// Workspace is the folder the children work in; "" is the current
	// folder.
	Workspace string
	// Sandbox is the sandbox mode (workspace.ParseMode); "" is
	// workspace-write.
	Sandbox string
	// SandboxNetwork lets sandboxed commands open connections.
	SandboxNetwork bool
	// SandboxHide are folders every sandboxed command sees empty, besides
	// wfrun's state folder, which is always hidden.
	SandboxHide []string
	// LandlockOnly runs sandboxed commands under Landlock alone where
	// there are no user namespaces.
	LandlockOnly bool
	// ModelMap maps model names: NAME=MODEL,… or @FILE (modelmap).
	ModelMap string

	// OTLPEndpoint is where traces go, over the OTEL_* variables.
	OTLPEndpoint string
	// Version is the version the traces report.
	Version string
	// RunsDir keeps the runs; "" is $WFRUN_RUNS_DIR, else DefaultRunsDir.
	RunsDir string
	// Stdin is what "-" and "@-" read, at most once per Load; nil means
	// none is available.
	Stdin io.Reader
	// Hint, when set, is appended to the error for a script that names
	// neither a file nor a saved workflow (the command line lists its
	// commands there).
	Hint func(name string) string
}

// Invocation is Inputs read: the request, and what the engine built for
// it needs (Open).
type Invocation struct {
	// Request is the run's request.
	Request engine.WorkflowStartRequest
	// ScriptFile names the script in notices: its path as given, the
	// saved workflow's file, or the run id of a resume.
	ScriptFile string
	// ExplicitProvider is true when the request's provider was named
	// (by Fields, Request, FakeRules or a resumed run), not defaulted.
	ExplicitProvider bool
	// FakeRules are the fake provider's rules; nil without Inputs.FakeRules.
	FakeRules *fake.Rules
	// WorkflowsDirs are Inputs.WorkflowsDirs, each checked.
	WorkflowsDirs []string
	// Providers are the complete provider settings.
	Providers Options
	// Tracing says where traces go.
	Tracing trace.Options
	// RunsDir keeps the runs; "" keeps none (a check).
	RunsDir string
	// EngineConfig, when set, adjusts the engine's Config last (LoadServer
	// turns the request's limits into the engine's defaults).
	EngineConfig func(*engine.Config)
}

// InputError is an input that could not be read or makes no sense: a
// file that is missing, two inputs that both read stdin, a bad setting.
// The command line calls it a usage error. Content that was read but
// fails a check is a *wferr.Error instead.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

func inputErr(format string, args ...any) error {
	return &InputError{Msg: fmt.Sprintf(format, args...)}
}

// Load reads in for a run of a script: Request, Script, Args and Meta,
// Fields, FakeRules and WorkflowsDirs, then the providers, the saved
// workflow Script names, the tracing and the runs folder. It returns an
// *InputError or a *wferr.Error.
func Load(in Inputs) (*Invocation, error) {
	return in.load((*reader).request, (*reader).script, (*reader).inputs, (*reader).fields, (*reader).fakeRules, (*reader).workflowsDirs)
}

// LoadServer reads in for a server of many runs (a model's tools, the
// page, a worker): there is no script, and the limits of Fields
// (SubagentProvider, MaxTotalAgents, Concurrency, BudgetTokens,
// MaxMemoryBytes, MaxRunFolderBytes, Isolate, the timeouts) become the
// engine's defaults through Invocation.EngineConfig.
func LoadServer(in Inputs) (*Invocation, error) {
	inv, err := in.load((*reader).fields, (*reader).fakeRules, (*reader).workflowsDirs)
	if err != nil {
		return nil, err
	}
	req := inv.Request
	inv.EngineConfig = func(cfg *engine.Config) {
		if req.SubagentProvider != "" {
			cfg.DefaultProvider = req.SubagentProvider
		}
		cfg.MaxTotalAgents = req.MaxTotalAgents
		cfg.Concurrency = req.Concurrency
		cfg.BudgetTokens = req.BudgetTokens
		cfg.MaxMemory = req.MaxMemoryBytes
		cfg.MaxRunFolder = req.MaxRunFolderBytes
		cfg.Isolate = req.Isolate
		cfg.RunTimeout = time.Duration(req.TimeoutMs) * time.Millisecond
		cfg.AgentTimeout = time.Duration(req.AgentTimeoutMs) * time.Millisecond
	}
	return inv, nil
}

// LoadResume reads in for a resume (or retry, or continue) of run id:
// the request holds only what Args, Meta and Fields set, to override the
// saved one, and the saved request's provider and isolation complete it
// (Resume). Parent is left empty: the run keeps its owner.
func LoadResume(in Inputs, id string) (*Invocation, error) {
	inv, err := in.load((*reader).inputs, (*reader).fields, (*reader).fakeRules, (*reader).workflowsDirs)
	if err != nil {
		return nil, err
	}
	inv.Request.Parent = ""
	inv.ScriptFile = id
	if !journal.ValidRunID(id) {
		return nil, inputErr("%q is not a run id: a run id is wf_ and 16 hex digits, as wfrun runs lists them", id)
	}
	fromSaved, err := Resume(inv.RunsDir, id, &inv.Request)
	if err != nil {
		return nil, err
	}
	if fromSaved {
		inv.ExplicitProvider = true // the provider the run used, built on purpose
	}
	return inv, nil
}

// reader reads Inputs into an Invocation step by step; the steps share
// stdin.
type reader struct {
	in        *Inputs
	inv       *Invocation
	stdinUsed string
	savedName string // the saved workflow Script names, found once the workspace is known
}

func (in *Inputs) load(steps ...func(*reader) error) (*Invocation, error) {
	r := &reader{in: in, inv: &Invocation{}}
	for _, step := range steps {
		if err := step(r); err != nil {
			return nil, err
		}
	}
	var err error
	if r.inv.Providers, err = in.providers(); err != nil {
		return nil, err
	}
	if err := r.savedWorkflow(); err != nil {
		return nil, err
	}
	if r.inv.Tracing, err = in.tracing(); err != nil {
		return nil, err
	}
	r.inv.RunsDir = RunsDir(in.RunsDir, in.Providers.Getenv)
	return r.inv, nil
}

// providers completes the provider settings: the ACP agents checked, the
// personas, the workspace and sandbox, and the model map.
func (in *Inputs) providers() (Options, error) {
	o := in.Providers
	for _, a := range o.ACPAgents {
		if _, _, err := acp.ParseAgentFlag(a); err != nil {
			return o, inputErr("%v", err)
		}
	}
	set, err := LoadPersonas(in.AgentsDirs, in.Workspace, o.getenv)
	if err != nil {
		return o, inputErr("%v", err)
	}
	o.Personas = set
	mode := workspace.WorkspaceWrite
	if in.Sandbox != "" {
		if mode, err = workspace.ParseMode(in.Sandbox); err != nil {
			return o, inputErr("--sandbox: %v", err)
		}
	}
	ws, err := WorkspaceDir(in.Workspace)
	if err != nil {
		return o, inputErr("%v", err)
	}
	// wfrun's state folder holds every run's journal key: no sandboxed
	// command may read it, whatever SandboxHide says.
	hide := slices.Clone(in.SandboxHide)
	if state, err := statedir.Dir(o.getenv); err == nil {
		hide = append(hide, state)
	}
	o.Workspace = workspace.Config{Root: ws, Mode: mode, Network: in.SandboxNetwork,
		Hide: hide, LandlockOnly: in.LandlockOnly}
	if in.ModelMap == "" {
		return o, nil
	}
	if file, ok := strings.CutPrefix(in.ModelMap, "@"); ok {
		o.Models, err = modelmap.Load(file)
	} else {
		o.Models, err = modelmap.ParseFlag(in.ModelMap)
	}
	if err != nil {
		return o, inputErr("--model-map: %v", err)
	}
	return o, nil
}

// tracing is the trace configuration: OTLPEndpoint and the OTEL_*
// variables. One the exporter cannot honour is an *InputError.
func (in *Inputs) tracing() (trace.Options, error) {
	opts := trace.Options{Endpoint: in.OTLPEndpoint, Getenv: in.Providers.getenv, Version: in.Version}
	if trace.Enabled(opts) {
		if err := trace.Check(opts); err != nil {
			return opts, inputErr("%v", err)
		}
	}
	return opts, nil
}

// RunsDir is dir, else $WFRUN_RUNS_DIR, else DefaultRunsDir; getenv nil
// is os.Getenv.
func RunsDir(dir string, getenv func(string) string) string {
	if dir != "" {
		return dir
	}
	if d := (Options{Getenv: getenv}).getenv("WFRUN_RUNS_DIR"); d != "" {
		return d
	}
	return DefaultRunsDir
}

// request decodes Request, refusing unknown fields.
func (r *reader) request() error {
	if r.in.Request == "" {
		return nil
	}
	data, err := r.readFile(r.in.Request, "--request")
	if err != nil {
		return err
	}
	if err := strictjson.Decode(data, &r.inv.Request); err != nil {
		return wferr.New(wferr.InvalidRequest,
			"--request %s: not a WorkflowStartRequest (%v); write a JSON object with some of the fields %s",
			r.in.Request, err, strings.Join(RequestFields(), ", "))
	}
	return nil
}

// RequestFields are the JSON names of engine.WorkflowStartRequest's
// fields, read from the type so that a hint never falls behind it.
func RequestFields() []string {
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

// script reads Script (or stdin for "-"); without it, Request must carry
// the script.
func (r *reader) script() error {
	req, path := &r.inv.Request, r.in.Script
	switch {
	case path == "":
		if req.Script == "" {
			return inputErr("no script given: write wfrun SCRIPT.js [flags], or pass a --request whose script is set")
		}
		if req.ScriptName == "" {
			req.ScriptName = "request.js"
		}
		r.inv.ScriptFile = req.ScriptName
	case IsSavedWorkflowRef(path):
		r.savedName = path
	default:
		src, err := r.readFile(path, "the script")
		if err != nil {
			return err
		}
		req.Script, req.ScriptName = string(src), filepath.Base(path)
		if path == "-" {
			req.ScriptName = "stdin.js"
		}
		r.inv.ScriptFile = path
	}
	return nil
}

// inputs reads Args and Meta.
func (r *reader) inputs() error {
	if r.in.Args != "" {
		data, err := r.jsonValue("args", r.in.Args, wferr.InvalidRequest, `{"topic":"…"}`)
		if err != nil {
			return err
		}
		r.inv.Request.Args = data
	}
	if r.in.Meta != "" {
		data, err := r.jsonValue("meta", r.in.Meta, wferr.MetaInvalid, `{"name":"my-workflow","description":"what it does"}`)
		if err != nil {
			return err
		}
		r.inv.Request.Meta = data
	}
	return nil
}

// fields lets Fields override the request's.
func (r *reader) fields() error {
	req, f := &r.inv.Request, r.in.Fields
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&req.SubagentProvider, f.SubagentProvider)
	r.inv.ExplicitProvider = req.SubagentProvider != ""
	set(&req.Parent, f.Parent)
	if req.Parent == "" {
		req.Parent = r.in.DefaultParent
	}
	set(&req.Model, f.Model)
	if f.Isolate != "" {
		req.Isolate = f.Isolate
	}
	if f.MaxTotalAgents > 0 {
		req.MaxTotalAgents = f.MaxTotalAgents
	}
	if f.Concurrency > 0 {
		req.Concurrency = f.Concurrency
	}
	for _, p := range []struct{ dst, v *int64 }{
		{&req.BudgetTokens, &f.BudgetTokens}, {&req.MaxMemoryBytes, &f.MaxMemoryBytes},
		{&req.MaxRunFolderBytes, &f.MaxRunFolderBytes}, {&req.TimeoutMs, &f.TimeoutMs}, {&req.AgentTimeoutMs, &f.AgentTimeoutMs},
	} {
		if *p.v > 0 {
			*p.dst = *p.v
		}
	}
	return nil
}

// fakeRules reads FakeRules, which also selects the fake provider when
// nothing else names one.
func (r *reader) fakeRules() error {
	if r.in.FakeRules == "" {
		return nil
	}
	data, err := r.readFile(r.in.FakeRules, "--fake-rules")
	if err != nil {
		return err
	}
	rules, err := fake.Parse(data)
	if err != nil {
		return wferr.New(wferr.InvalidRequest, "--fake-rules %s: %v", r.in.FakeRules, err)
	}
	r.inv.FakeRules = rules
	if r.inv.Request.SubagentProvider == "" {
		// Rules only mean something to the fake provider: asking for
		// them is asking for it, whatever the environment configures.
		r.inv.Request.SubagentProvider = engine.DefaultProvider
		r.inv.ExplicitProvider = true
	}
	return nil
}

// workflowsDirs checks that every WorkflowsDirs entry is a folder.
func (r *reader) workflowsDirs() error {
	for _, dir := range r.in.WorkflowsDirs {
		st, err := os.Stat(dir)
		if err != nil {
			return inputErr("--workflows-dir: %v; name an existing folder of saved NAME.js workflows", err)
		}
		if !st.IsDir() {
			return inputErr("--workflows-dir: %s is a file; name the folder that holds the saved NAME.js workflows", dir)
		}
		r.inv.WorkflowsDirs = append(r.inv.WorkflowsDirs, dir)
	}
	return nil
}

// savedWorkflow replaces a Script that names a saved workflow with that
// workflow's source, found where workflow(name) finds it. It runs once
// the workspace is known.
func (r *reader) savedWorkflow() error {
	if r.savedName == "" {
		return nil
	}
	var cfg engine.Config
	r.inv.workflows(&cfg)
	file, src, err := engine.FindSavedWorkflow(cfg, r.savedName)
	if err != nil {
		msg := err.Error()
		if we, ok := wferr.As(err); ok {
			msg = we.Message
		}
		return inputErr("%s is neither a file nor a saved workflow: %s%s", r.savedName, msg, r.hint(r.savedName))
	}
	r.inv.Request.Script, r.inv.Request.ScriptName, r.inv.ScriptFile = src, file, file
	return nil
}

func (r *reader) hint(name string) string {
	if r.in.Hint == nil {
		return ""
	}
	return r.in.Hint(name)
}

// workflows sets where cfg's engine finds saved workflows: every
// WorkflowsDirs entry, then the workspace's .claude/workflows and
// .wfrun/workflows, then ~/.claude/workflows; and the workspace that a
// script's paths resolve in.
func (inv *Invocation) workflows(cfg *engine.Config) {
	ws := inv.Providers.Workspace.Root
	cfg.WorkflowsDirs = engine.WorkflowSearchDirs(inv.WorkflowsDirs, ws, inv.Providers.getenv("HOME"))
	cfg.Workspace = ws
}

// jsonValue reads a JSON|@FILE input and checks that it is JSON.
func (r *reader) jsonValue(name, raw string, code wferr.Code, example string) (json.RawMessage, error) {
	data := []byte(raw)
	if file, ok := strings.CutPrefix(raw, "@"); ok {
		var err error
		if data, err = r.readFile(file, "--"+name+" @"+file); err != nil {
			return nil, err
		}
	}
	var v json.RawMessage
	if err := json.Unmarshal(bytes.TrimSpace(data), &v); err != nil {
		if strings.HasPrefix(raw, "@") {
			return nil, wferr.New(code, "--%s %s: not JSON (%v); write one JSON value such as %s in the file", name, raw, err, example)
		}
		return nil, wferr.New(code, "--%s: not JSON (%v); pass JSON like --%s '%s' or @file.json", name, err, name, example)
	}
	return v, nil
}

// readFile reads path, or stdin for "-" (once per Load); what names the
// input in messages.
func (r *reader) readFile(path, what string) ([]byte, error) {
	if path == "-" {
		if r.stdinUsed != "" {
			return nil, inputErr("%s and %s both read stdin; put one of them in a file", r.stdinUsed, what)
		}
		r.stdinUsed = what
		if r.in.Stdin == nil {
			return nil, inputErr("%s: stdin is not available", what)
		}
		data, err := io.ReadAll(r.in.Stdin)
		if err != nil {
			return nil, inputErr("%s: cannot read stdin: %v", what, err)
		}
		return data, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		hint := ""
		if errors.Is(err, os.ErrNotExist) && what == "the script" && filepath.Ext(path) == "" {
			hint = r.hint(path)
		}
		return nil, inputErr("cannot read %s: %v%s", what, PathError(err), hint)
	}
	return data, nil
}

// savedWorkflowName matches what a Script may be for the name of a saved
// workflow rather than a file: a workflow name, not ending in .js.
var savedWorkflowName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// IsSavedWorkflowRef reports whether a script argument names a saved
// workflow: no such file exists, and it is a workflow name, not a path.
func IsSavedWorkflowRef(arg string) bool {
	if arg == "-" || strings.HasSuffix(arg, ".js") || !savedWorkflowName.MatchString(arg) {
		return false
	}
	_, err := os.Stat(arg)
	return os.IsNotExist(err)
}

// PathError says err without the Go operation name of an *os.PathError
// ("open x: no such file" becomes "x: no such file").
func PathError(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Path + ": " + pe.Err.Error()
	}
	return err.Error()
}

// WorkspaceDir returns dir after checking that it is a folder, or the
// current folder when dir is "".
func WorkspaceDir(dir string) (string, error) {
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("cannot tell the current folder (%v); pass --workspace DIR", err)
		}
		return wd, nil
	}
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return "", fmt.Errorf("--workspace %s is not a folder; name the folder the sub-agents work in", dir)
	}
	return dir, nil
}

// LoadPersonas loads the personas of dirs, the workspace's .claude/agents
// and .wfrun/agents, and ~/.claude/agents, in that order; getenv (nil:
// os.Getenv) reads HOME.
func LoadPersonas(dirs []string, ws string, getenv func(string) string) (*persona.Set, error) {
	ws, err := WorkspaceDir(ws)
	if err != nil {
		return nil, err
	}
	return persona.Load(persona.SearchDirs(dirs, ws, Options{Getenv: getenv}.getenv("HOME"))), nil
}
