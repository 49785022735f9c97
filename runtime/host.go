package runtime

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja"

	"github.com/wfrun/wfrun/internal/wferr"
	"github.com/wfrun/wfrun/sandbox"
)

// maxLogBytes caps one log message; longer ones are cut with a note.
const maxLogBytes = 64 << 10

// MaxLogEvents is how many log events a run may emit, and MaxLogVolume how
// many bytes of messages: a script that floods (a million log() calls) has
// the rest dropped and counted, and one last log event says how many, so
// that no consumer of the events (a terminal, a ledger, a page) drowns.
const (
	MaxLogEvents = 10000
	MaxLogVolume = 8 << 20
)

// jsHelpers are the script-side halves of parallel and pipeline, bound to
// this run's Go callbacks.
type jsHelpers struct {
	parallel goja.Value
	pipeline goja.Value
}

// install puts into the VM the host globals s can reach (Script.Mentions):
// a host function is a goja function object of about 1.4 KB, and a run
// suspended on its children holds every one it was given, so a script that
// never names budget or console does not pay for them. It runs for the
// run's script and again for each nested workflow before its code runs,
// adding what that one names. Loop goroutine.
func (r *run) install(s *sandbox.Script) error {
	vm := r.vm
	set := func(name string, v any) error {
		if r.installed[name] || !s.Mentions(name) {
			return nil
		}
		if r.installed == nil {
			r.installed = make(map[string]bool, 8)
		}
		r.installed[name] = true
		return vm.GlobalObject().Set(name, v)
	}
	if s.Mentions("Promise") {
		r.capturePromise() // before the script can replace it
	}
	if err := set("agent", r.agentFunc); err != nil {
		return err
	}
	if err := r.installCombinators(set); err != nil {
		return err
	}
	if err := set("phase", r.phaseFunc); err != nil {
		return err
	}
	if s.Mentions("log") || s.Mentions("console") {
		if r.logFn == nil {
			r.logFn = vm.ToValue(r.logFunc)
		}
		if err := set("log", r.logFn); err != nil {
			return err
		}
		if s.Mentions("console") && !r.installed["console"] {
			console := vm.NewObject()
			for _, name := range []string{"log", "info", "warn", "error", "debug"} {
				_ = console.Set(name, r.logFn)
			}
			if err := set("console", console); err != nil {
				return err
			}
		}
	}
	if s.Mentions("budget") && !r.installed["budget"] {
		return set("budget", r.budgetObject())
	}
	return nil
}

// capturePromise keeps goja's Promise for parallel and pipeline, so that a
// script that replaces the global cannot change how they settle. It is
// captured before any script that names Promise runs, or when the
// combinators are first built (no script could have replaced it then).
func (r *run) capturePromise() {
	if r.promise == nil {
		r.promise = r.vm.GlobalObject().Get("Promise")
	}
}

// workflowArg is the workflow function a script at depth gets as its
// parameter, or undefined for a script that never names it.
func (r *run) workflowArg(s *sandbox.Script, depth int) goja.Value {
	if !s.Mentions("workflow") {
		return goja.Undefined()
	}
	return r.vm.ToValue(r.workflowFunc(depth))
}

// phaseFunc implements phase(title).
func (r *run) phaseFunc(call goja.FunctionCall) goja.Value {
	t := call.Argument(0)
	if !isString(t) || strings.TrimSpace(t.String()) == "" {
		return r.fatalf(wferr.InvalidArgument, "phase() needs a non-empty title string, got %s", describe(t))
	}
	title, err := cappedString("phase()'s title", t)
	if err != nil {
		return r.raise(err)
	}
	r.phase = title
	r.emit(Event{Type: EventPhase, Title: r.phase})
	return goja.Undefined()
}

// logFunc implements log(...values) and console.*: strings as they are,
// other values as JSON, joined by spaces.
func (r *run) logFunc(call goja.FunctionCall) goja.Value {
	parts := make([]string, 0, len(call.Arguments))
	for _, v := range call.Arguments {
		parts = append(parts, r.formatLogValue(v))
	}
	msg := strings.Join(parts, " ")
	if len(msg) > maxLogBytes {
		msg = cutUTF8(msg, maxLogBytes) + " …(log message cut at 64 KiB)"
	}
	if r.logs >= MaxLogEvents || r.logVolume+len(msg) > MaxLogVolume {
		r.logsDropped++
		return goja.Undefined()
	}
	r.logs++
	r.logVolume += len(msg)
	r.emit(Event{Type: EventLog, Message: msg})
	return goja.Undefined()
}

// reportDroppedLogs emits the one log event that says how many messages a
// flooding script lost. Loop goroutine, when the run has settled.
func (r *run) reportDroppedLogs() {
	if r.logsDropped == 0 {
		return
	}
	msg := fmt.Sprintf("…%d more log messages were dropped: a run keeps at most %d log messages and %d MiB of them; log less, or return the data",
		r.logsDropped, MaxLogEvents, MaxLogVolume>>20)
	r.emit(Event{Type: EventLog, Message: msg})
}

func (r *run) formatLogValue(v goja.Value) string {
	if isString(v) {
		return v.String()
	}
	if o, ok := v.(*goja.Object); ok {
		if isFunction(o) {
			return "[function]"
		}
		if o.ClassName() == "Error" {
			return v.String()
		}
		if raw, err := r.rt.ExportJSON(v, maxLogBytes); err == nil {
			return string(raw)
		}
		return "[unprintable " + o.ClassName() + "]"
	}
	if v == nil || goja.IsUndefined(v) {
		return "undefined"
	}
	return v.String()
}

// budgetObject builds the budget global: {total, spent(), remaining()} in
// tokens; total is null without a budget and remaining() is then Infinity.
func (r *run) budgetObject() *goja.Object {
	vm := r.vm
	b := vm.NewObject()
	if r.cfg.BudgetTokens > 0 {
		_ = b.Set("total", r.cfg.BudgetTokens)
	} else {
		_ = b.Set("total", goja.Null())
	}
	spent := func() int64 {
		r.mu.Lock()
		defer r.mu.Unlock()
		return r.spentLocked()
	}
	// Native functions, not func() int64: goja wraps those by reflection,
	// which costs more at every run's start than the rest of install.
	_ = b.Set("spent", func(goja.FunctionCall) goja.Value { return vm.ToValue(spent()) })
	_ = b.Set("remaining", func(goja.FunctionCall) goja.Value {
		if r.cfg.BudgetTokens <= 0 {
			return vm.ToValue(math.Inf(1))
		}
		return vm.ToValue(math.Max(0, float64(r.cfg.BudgetTokens-spent())))
	})
	return b
}

// workflowFunc returns workflow(name, args) for a script at the given
// nesting depth: depth 0 may call it once more, depth 1 may not.
func (r *run) workflowFunc(depth int) func(goja.FunctionCall) goja.Value {
	return func(call goja.FunctionCall) goja.Value {
		if depth > 0 {
			return r.fatalf(wferr.Nesting, "workflow() cannot be called from a nested workflow: nesting is one level deep; call the inner workflow from the top-level script instead")
		}
		s, args, errv := r.resolveWorkflow(call)
		if errv != nil {
			return errv
		}
		if err := r.install(s); err != nil {
			panic(err)
		}
		fn, err := r.rt.Load(s)
		if err != nil {
			r.fail(asError(r.rt.Error(err)))
			return goja.Undefined()
		}
		v, err := fn(goja.Undefined(), args, r.workflowArg(s, depth+1))
		if err != nil {
			panic(err) // an interrupt or stack overflow: let it unwind the VM
		}
		return v
	}
}

// resolveWorkflow reads workflow()'s arguments — workflow(name, args?) or
// Claude Code's workflow({scriptPath | name, args?}, args?), scriptPath
// winning over name — and loads the saved script. It returns the script
// and the nested script's own copy of args (as a fresh run would get), or
// the fatal error's value. Loop goroutine.
func (r *run) resolveWorkflow(call goja.FunctionCall) (*sandbox.Script, goja.Value, goja.Value) {
	first := call.Argument(0)
	argsVal := call.Argument(1)
	var name, path string
	switch {
	case isString(first):
		name = first.String()
	case isObject(first) && !isArray(first.(*goja.Object)):
		o := first.ToObject(r.vm)
		for _, k := range o.Keys() {
			v := o.Get(k) // once: a getter is called once
			if v == nil || goja.IsUndefined(v) {
				continue
			}
			switch k {
			case "name", "scriptPath":
				if !isString(v) || v.String() == "" {
					return nil, nil, r.fatalf(wferr.InvalidArgument, "workflow({%s}) needs a non-empty string, got %s", k, describe(v))
				}
				if k == "name" {
					name = v.String()
				} else {
					path = v.String()
				}
			case "args":
				if !goja.IsUndefined(argsVal) {
					return nil, nil, r.fatalf(wferr.InvalidArgument, "workflow() got args twice, in the object and as its second argument: pass them once")
				}
				argsVal = v
			default:
				return nil, nil, r.fatalf(wferr.InvalidArgument, "workflow() does not take %q: the object form takes scriptPath (a .js file in the workspace) or name (a saved workflow), and args", k)
			}
		}
		if name == "" && path == "" {
			return nil, nil, r.fatalf(wferr.InvalidArgument, "workflow({…}) needs scriptPath (a .js file in the workspace) or name (a saved workflow)")
		}
	}
	if name == "" && path == "" {
		return nil, nil, r.fatalf(wferr.InvalidArgument, "workflow() needs a workflow name string as its first argument (or {scriptPath} or {name}), got %s", describe(first))
	}
	var s *sandbox.Script
	var err error
	label := fmt.Sprintf("workflow(%q)", name)
	if path != "" {
		label = fmt.Sprintf("workflow({scriptPath: %q})", path)
		if r.cfg.LoadWorkflowFile == nil {
			return nil, nil, r.fatalf(wferr.InvalidArgument, "%s: this run has no workspace to read the file from; name a saved workflow instead", label)
		}
		s, err = r.cfg.LoadWorkflowFile(path)
	} else {
		if r.cfg.LoadWorkflow == nil {
			return nil, nil, r.fatalf(wferr.InvalidArgument, "%s: no workflows folder is configured; save workflows in WORKSPACE/.claude/workflows, or set --workflows-dir (CLI) or Config.WorkflowsDirs", label)
		}
		s, err = r.cfg.LoadWorkflow(name)
	}
	if err != nil {
		if we, ok := wferr.As(err); ok {
			return nil, nil, r.raise(we)
		}
		return nil, nil, r.fatalf(wferr.InvalidArgument, "%s: %v", label, err)
	}
	var args goja.Value = goja.Undefined()
	if !goja.IsUndefined(argsVal) {
		raw, err := r.rt.ExportJSON(argsVal, 0)
		if err != nil {
			return nil, nil, r.fatalf(wferr.InvalidArgument, "%s args must be JSON data: %v", label, err)
		}
		if args, err = r.rt.ParseJSON(raw); err != nil {
			return nil, nil, r.fatalf(wferr.InvalidArgument, "%s args must be JSON data: %v", label, err)
		}
	}
	return s, args, nil
}

// cutUTF8 returns the longest prefix of s of at most n bytes that does not
// split a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
