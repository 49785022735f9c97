package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dop251/goja/ast"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/schema"
	"github.com/wfrun/wfrun/internal/wferr"
	"github.com/wfrun/wfrun/meta"
	"github.com/wfrun/wfrun/meta/calls"
	"github.com/wfrun/wfrun/runtime"
	"github.com/wfrun/wfrun/runtime/isolate"
	"github.com/wfrun/wfrun/sandbox"
)

// prepared is a request that passed every pre-check.
type prepared struct {
	script   *sandbox.Script
	meta     meta.WorkflowMeta
	warnings []string
	provider agentapi.Provider
	cfg      runtime.Config
	isolate  Isolation
	folder   int64 // the run folder's size budget in bytes
}

// Isolation says where a run's script executes.
type Isolation string

// The isolations.
const (
	IsolateNone    Isolation = "none"    // in the engine's process (also "")
	IsolateProcess Isolation = "process" // in a child process of its own
)

// isolation resolves the request's isolation against the engine's: a
// request may raise it, never lower it.
func (e *Engine) isolation(req WorkflowStartRequest) (Isolation, error) {
	want := e.cfg.Isolate
	switch req.Isolate {
	case "", IsolateNone:
	case IsolateProcess:
		want = IsolateProcess
	default:
		return "", wferr.New(wferr.InvalidRequest, "isolate %q is not an isolation: use \"process\" (a child process per run) or \"none\"", req.Isolate)
	}
	if want != IsolateProcess {
		return IsolateNone, nil
	}
	if !isolate.Available() {
		return "", isolate.ErrUnavailable
	}
	return IsolateProcess, nil
}

// prepare runs every pre-check of Start without running anything, in the
// order docs/architecture.md lists them: the request's own fields, the
// provider, the script, its meta, what it uses that a workflow lacks, its
// literal agent() options, the limits.
func (e *Engine) prepare(req WorkflowStartRequest) (*prepared, error) {
	p, _, err := e.prepareReporting(req)
	return p, err
}

// prepareReporting is prepare, also reporting whether the checks reached
// the meta and took the request's FallbackMeta for it: what Check tells
// its caller even when a later check fails.
func (e *Engine) prepareReporting(req WorkflowStartRequest) (p *prepared, metaFallback bool, err error) {
	if err := checkRequestFields(req); err != nil {
		return nil, false, err
	}
	provider, err := e.lookupProvider(req.SubagentProvider)
	if err != nil {
		return nil, false, err
	}
	cs := e.compiled(req)
	if cs.err != nil {
		return nil, false, cs.err
	}
	m, warnings, metaFallback, err := resolveMeta(req, cs)
	if err != nil {
		return nil, metaFallback, err
	}
	if err := checkAbsent(cs.script); err != nil {
		return nil, metaFallback, err
	}
	callWarnings, err := checkAgentCalls(cs.script, provider)
	if err != nil {
		return nil, metaFallback, err
	}
	warnings = append(append(warnings, modelWarnings(m, provider)...), callWarnings...)
	iso, err := e.isolation(req)
	if err != nil {
		return nil, metaFallback, err
	}
	cfg, limitWarnings := e.limits(req)
	cfg.Parent, cfg.Script, cfg.Args, cfg.Meta, cfg.Provider = req.Parent, cs.script, req.Args, m, provider
	cfg.LoadWorkflow = e.workflowLoader()
	cfg.LoadWorkflowFile = e.workflowFileLoader()
	folder, folderWarnings := e.folderBudget(req)
	warnings = append(append(warnings, limitWarnings...), folderWarnings...)
	// Persona files that loaded only when read line by line: the run's
	// agents may use them, so the run says so with the file and the line.
	for _, w := range e.cfg.Personas.Warnings() {
		warnings = append(warnings, "persona "+w.Error())
	}
	return &prepared{script: cs.script, meta: m, warnings: warnings, provider: provider, cfg: cfg, isolate: iso, folder: folder}, metaFallback, nil
}

// folderBudget resolves the size budget of the run's folder: the
// request's where it is lower than the engine's, else the engine's, else
// the default.
func (e *Engine) folderBudget(req WorkflowStartRequest) (int64, []string) {
	budget := e.cfg.MaxRunFolder
	if budget <= 0 {
		budget = DefaultMaxRunFolder
	}
	if req.MaxRunFolderBytes > budget {
		return budget, []string{fmt.Sprintf("maxRunFolderBytes %d is above the engine's ceiling; using %d", req.MaxRunFolderBytes, budget)}
	}
	if req.MaxRunFolderBytes > 0 {
		budget = req.MaxRunFolderBytes
	}
	return budget, nil
}

// checkRequestFields checks what the request says about itself: an owner,
// a script, JSON args, sizes and non-negative numbers.
func checkRequestFields(req WorkflowStartRequest) error {
	if strings.TrimSpace(req.Parent) == "" {
		return wferr.New(wferr.InvalidRequest, "the request has no parent: set parent to the agent that owns this run (the CLI uses \"cli\")")
	}
	if len(req.Parent) > maxParentLength {
		return wferr.New(wferr.InvalidRequest, "parent is %d bytes long; keep it under %d", len(req.Parent), maxParentLength)
	}
	if strings.TrimSpace(req.Script) == "" {
		return wferr.New(wferr.InvalidRequest, "the request has no script: pass the workflow's JavaScript source in script")
	}
	if len(req.Args) > 0 {
		if len(req.Args) > maxArgsBytes {
			return wferr.New(wferr.InvalidRequest, "args is %d bytes; the limit is %d", len(req.Args), maxArgsBytes)
		}
		if !json.Valid(req.Args) {
			return wferr.New(wferr.InvalidRequest, "args is not valid JSON; pass a JSON value such as {\"topic\":\"…\"}")
		}
	}
	if len(req.Meta) > maxMetaRequestBytes {
		return wferr.New(wferr.InvalidRequest, "meta is %d bytes; the limit is %d", len(req.Meta), maxMetaRequestBytes)
	}
	if len(req.FallbackMeta) > maxMetaRequestBytes {
		return wferr.New(wferr.InvalidRequest, "fallbackMeta is %d bytes; the limit is %d", len(req.FallbackMeta), maxMetaRequestBytes)
	}
	if req.MaxTotalAgents < 0 || req.Concurrency < 0 || req.TimeoutMs < 0 || req.AgentTimeoutMs < 0 || req.BudgetTokens < 0 || req.MaxMemoryBytes < 0 || req.MaxRunFolderBytes < 0 {
		return wferr.New(wferr.InvalidRequest, "maxTotalAgents, concurrency, timeoutMs, agentTimeoutMs, budgetTokens, maxMemoryBytes and maxRunFolderBytes must not be negative (0 means the engine default)")
	}
	return nil
}

// lookupProvider returns the provider a request names, or the default.
func (e *Engine) lookupProvider(name string) (agentapi.Provider, error) {
	if name == "" {
		name = e.cfg.DefaultProvider
	}
	p, ok := e.providers.Lookup(name)
	if !ok {
		return nil, wferr.New(wferr.InvalidRequest, "unknown subagentProvider %q; the registered providers are %s", name, strings.Join(e.providers.Names(), ", "))
	}
	return p, nil
}

// compiled returns the request's script, parsed, checked and compiled, from
// the cache when it has been seen before.
func (e *Engine) compiled(req WorkflowStartRequest) *compiled {
	name := req.ScriptName
	if name == "" {
		name = DefaultScriptName
	}
	return e.cache.get(name, req.Script)
}

// resolveMeta merges the request's meta with the script's and validates the
// result; the request's model replaces meta.model. When neither has any,
// the request's FallbackMeta is the meta, and fellBack says so.
func resolveMeta(req WorkflowStartRequest, cs *compiled) (m meta.WorkflowMeta, warnings []string, fellBack bool, err error) {
	if len(req.Meta) == 0 && cs.parsed != nil {
		// What Merge and Parse below would return, parsed once per script.
		// Each run gets its own phases and warnings (Run.Meta hands them
		// out; prepare appends to the warnings).
		m := cs.parsed.meta
		m.Phases = slices.Clone(m.Phases)
		if req.Model != "" {
			m.Model = req.Model
		}
		return m, slices.Clone(cs.parsed.warnings), false, nil
	}
	raw, err := meta.Merge(req.Meta, cs.meta)
	if err != nil {
		return meta.WorkflowMeta{}, nil, false, err
	}
	if len(raw) == 0 && len(bytes.TrimSpace(req.FallbackMeta)) > 0 {
		raw, fellBack = req.FallbackMeta, true
	}
	if len(raw) == 0 {
		return meta.WorkflowMeta{}, nil, false, wferr.New(wferr.MetaInvalid, "the workflow has no meta: start the script with export const meta = { name: 'my-workflow', description: 'what it does' } or pass meta in the request")
	}
	m, warnings, err = meta.Parse(raw)
	if err != nil {
		return meta.WorkflowMeta{}, nil, fellBack, err
	}
	if req.Model != "" {
		m.Model = req.Model
	}
	return m, warnings, fellBack, nil
}

// checkAgentCalls refuses, before anything runs, an agent() call whose
// literal options the call itself would refuse when it runs, at the
// position of the first bad key or value: a key nobody honours or the
// provider cannot honour (UNSUPPORTED_OPTION), an agentType the provider
// does not know (UNSUPPORTED_OPTION), a literal schema that does not compile
// (UNSUPPORTED_SCHEMA). It returns a warning for each literal model the
// provider will not send as written.
func checkAgentCalls(s *sandbox.Script, p agentapi.Provider) (warnings []string, err error) {
	for _, call := range calls.Agent(s) {
		names := make([]string, len(call.Keys))
		for i, k := range call.Keys {
			names[i] = k.Name
		}
		if bad := runtime.CheckAgentOptions(names, call.ObjectForm, p); bad != nil {
			for _, k := range call.Keys {
				if contains(bad.Keys, k.Name) {
					bad.Err.Line, bad.Err.Column = k.Line, k.Column
					break
				}
			}
			return nil, bad.Err
		}
		for _, k := range call.Keys {
			w, err := checkLiteralOption(s, p, k)
			if err != nil {
				return nil, err
			}
			if w != "" {
				warnings = append(warnings, fmt.Sprintf("line %d: %s", k.Line, w))
			}
		}
	}
	return warnings, nil
}

// checkLiteralOption checks one option whose value is written as a literal
// the way agent() checks it at run time. Values that are not literals are
// left to the call.
func checkLiteralOption(s *sandbox.Script, p agentapi.Provider, k calls.AgentKey) (warning string, err error) {
	switch k.Name {
	case "agentType", "persona":
		name, ok := k.Value.(*ast.StringLiteral)
		pc, checks := p.(agentapi.PersonaChecker)
		if !ok || !checks {
			return "", nil
		}
		if err := pc.CheckPersona(name.Value.String()); err != nil {
			line, col := s.Position(name.Idx)
			return "", &wferr.Error{Code: wferr.UnsupportedOption, Message: err.Error(), Line: line, Column: col, Cause: err}
		}
	case "model":
		name, ok := k.Value.(*ast.StringLiteral)
		if mc, checks := p.(agentapi.ModelChecker); ok && checks {
			return mc.CheckModel(name.Value.String()), nil
		}
	case "schema":
		lit, ok := k.Value.(*ast.ObjectLiteral)
		if !ok {
			return "", nil
		}
		raw, err := meta.FromLiteral(lit, s)
		if err != nil {
			return "", nil // not a pure literal (a variable inside, say): the call checks it
		}
		if _, err := schema.Compile(raw); err != nil {
			line, col := s.Position(lit.Idx0())
			return "", &wferr.Error{Code: wferr.UnsupportedSchema, Message: "agent() option schema is not usable: " + err.Error(),
				Line: line, Column: col, Cause: err}
		}
	}
	return "", nil
}

// modelWarnings are the warnings for the models meta names (meta.model and
// each phase's model) that the provider will not send as written.
func modelWarnings(m meta.WorkflowMeta, p agentapi.Provider) []string {
	mc, ok := p.(agentapi.ModelChecker)
	if !ok {
		return nil
	}
	var warnings []string
	add := func(where, model string) {
		if model == "" {
			return
		}
		if w := mc.CheckModel(model); w != "" {
			warnings = append(warnings, where+": "+w)
		}
	}
	add("meta.model", m.Model)
	for i, ph := range m.Phases {
		add(fmt.Sprintf("meta.phases[%d].model", i), ph.Model)
	}
	return warnings
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// limits resolves the run's caps, slots, deadlines and budget: the
// request's values where it gives them (a request may lower the agent cap,
// never raise it), else the engine's, else the defaults.
func (e *Engine) limits(req WorkflowStartRequest) (runtime.Config, []string) {
	var warnings []string
	maxAgents := e.cfg.MaxTotalAgents
	if req.MaxTotalAgents > 0 {
		if req.MaxTotalAgents > maxAgents {
			warnings = append(warnings, fmt.Sprintf("maxTotalAgents %d is above the engine's ceiling; using %d", req.MaxTotalAgents, maxAgents))
		} else {
			maxAgents = req.MaxTotalAgents
		}
	}
	conc := e.cfg.Concurrency
	if conc <= 0 {
		conc = DefaultConcurrency
	}
	if req.Concurrency > 0 {
		conc = min(req.Concurrency, MaxConcurrency)
		if req.Concurrency > MaxConcurrency {
			warnings = append(warnings, fmt.Sprintf("concurrency %d is above the limit; using %d", req.Concurrency, MaxConcurrency))
		}
	}
	timeout := e.cfg.RunTimeout
	if req.TimeoutMs > 0 {
		timeout = time.Duration(req.TimeoutMs) * time.Millisecond
	}
	agentTimeout := e.cfg.AgentTimeout
	if req.AgentTimeoutMs > 0 {
		agentTimeout = time.Duration(req.AgentTimeoutMs) * time.Millisecond
	}
	budget := e.cfg.BudgetTokens
	if req.BudgetTokens > 0 {
		budget = req.BudgetTokens
	}
	memory := e.cfg.MaxMemory
	if memory <= 0 {
		memory = sandbox.DefaultMaxMemory
	}
	if req.MaxMemoryBytes > 0 {
		if req.MaxMemoryBytes > memory {
			warnings = append(warnings, fmt.Sprintf("maxMemoryBytes %d is above the engine's ceiling; using %d", req.MaxMemoryBytes, memory))
		} else {
			memory = req.MaxMemoryBytes
		}
	}
	return runtime.Config{
		Concurrency: conc, MaxAgents: maxAgents, MaxItems: e.cfg.MaxItems,
		Timeout: max(timeout, 0), AgentTimeout: agentTimeout, BudgetTokens: budget,
		CancelGrace: e.cfg.CancelGrace, MaxResultBytes: e.cfg.MaxResultBytes, MaxMemory: memory,
		Sandbox: sandbox.Options{MaxCallStackSize: e.cfg.MaxCallStackSize},
	}, warnings
}
