package sandbox

import (
	"errors"
	"strings"

	"github.com/dop251/goja"

	"github.com/wfrun/wfrun/internal/wferr"
)

// Error converts an error from running script code to a *wferr.Error:
//
//   - an uncaught throw (*goja.Exception) is SCRIPT_ERROR with the JS message
//     and the position of the innermost stack frame inside a script loaded
//     into this runtime, in the user's file; a thrown Go error that already
//     is a *wferr.Error is returned unchanged;
//   - a stack overflow is RESOURCE_LIMIT;
//   - an interrupt whose value is an error (the runtime interrupts with
//     *wferr.Error values for fatal misuse, timeouts and cancellation)
//     returns that error unchanged.
//
// nil stays nil; an error that already is a *wferr.Error is returned as is.
func (r *Runtime) Error(err error) error {
	if err == nil {
		return nil
	}
	var we *wferr.Error
	var intr *goja.InterruptedError
	var so *goja.StackOverflowError
	var ex *goja.Exception
	switch {
	case errors.As(err, &intr):
		if e, ok := intr.Value().(error); ok {
			return e
		}
		return wferr.Wrap(wferr.Internal, err, "the script was interrupted: %v", intr.Value())
	case errors.As(err, &so):
		line, col := r.position(so.Stack())
		e := wferr.At(wferr.ResourceLimit, line, col,
			"maximum call stack size exceeded: a function recurses too deeply (more than %d nested calls); use a loop", r.maxStack)
		e.Cause = err
		return e
	case errors.As(err, &ex):
		if inner := ex.Unwrap(); inner != nil && errors.As(inner, &we) {
			return we
		}
		line, col := r.position(ex.Stack())
		e := wferr.At(wferr.ScriptError, line, col, "%s", r.describe(ex.Value()))
		e.Cause = err
		return e
	case errors.As(err, &we):
		return err
	}
	return wferr.Wrap(wferr.Internal, err, "sandbox: %v", err)
}

// RejectionError converts the value a script's promise rejected with (its
// body threw, or returned a rejected promise) into the error an uncaught
// throw of it gives (see Error). Error objects keep the position where they
// were created; other thrown values have none.
func (r *Runtime) RejectionError(v goja.Value) error {
	if r.thrower == nil {
		r.thrower, _ = goja.AssertFunction(r.VM.ToValue(func(call goja.FunctionCall) goja.Value {
			panic(call.Argument(0))
		}))
	}
	_, err := r.thrower(goja.Undefined(), v)
	return r.Error(err)
}

// CallerPosition returns the user's line and column of the innermost frame
// of a loaded script on the VM's stack — for a host function, the script's
// call of it — or (0, 0) when no script code is running. Loop goroutine.
func (r *Runtime) CallerPosition() (line, col int) {
	return r.position(r.VM.CaptureCallStack(0, nil))
}

// position returns the user's line and column of the innermost frame that
// lies in a loaded script, or (0, 0).
func (r *Runtime) position(stack []goja.StackFrame) (line, col int) {
	for i := range stack {
		f := &stack[i]
		if !r.scripts[f.SrcName()] {
			continue
		}
		p := f.Position()
		if p.Line == 1 {
			p.Column -= len(wrapPrefix)
		}
		if p.Line < 1 || p.Column < 1 {
			continue
		}
		return p.Line, p.Column
	}
	return 0, 0
}

// hints add what to do instead to the ReferenceErrors of globals that a
// workflow deliberately lacks.
var hints = map[string]string{
	"require":        "modules are not available in a workflow script: ask an agent to read files, or pass data in args",
	"process":        "there is no process or environment in a workflow: pass what you need in args",
	"setTimeout":     "timers are not available in a workflow: there is no clock; await agent() results instead",
	"setInterval":    "timers are not available in a workflow: there is no clock; use a loop over agent() calls",
	"setImmediate":   "timers are not available in a workflow: use await Promise.resolve() to yield",
	"queueMicrotask": "use await Promise.resolve() or Promise.resolve().then(fn) instead",
	"fetch":          "there is no network in a workflow: ask an agent to fetch it",
	"fs":             "there is no filesystem in a workflow: ask an agent to read or write files",
	"Buffer":         "Buffer is not available: use strings, TextEncoder-free code or ask an agent",
	"Proxy":          "Proxy is not available in a workflow: use a plain object, or a function that wraps the calls you want to intercept",
}

// describe renders a thrown value as "Name: message", adding a hint for the
// globals a workflow lacks on purpose. Rendering runs script code (getters,
// toString), which may throw in turn: describe then says so.
func (r *Runtime) describe(v goja.Value) (s string) {
	if ex := r.VM.Try(func() { s = r.render(v) }); ex != nil {
		return "uncaught throw of a value that could not be shown (showing it threw too): throw an Error instead"
	}
	return s
}

func (r *Runtime) render(v goja.Value) string {
	if v == nil || goja.IsUndefined(v) {
		return "uncaught throw of undefined"
	}
	obj, isObj := v.(*goja.Object)
	if !isObj {
		return "uncaught throw: " + v.String() + " (throw an Error to get its line)"
	}
	name := obj.Get("name")
	msg := obj.Get("message")
	if name == nil || msg == nil || goja.IsUndefined(msg) {
		if j, err := r.ExportJSON(v, 1<<10); err == nil {
			return "uncaught throw: " + string(j) + " (throw an Error to get its line)"
		}
		return "uncaught throw: " + v.String() + " (throw an Error to get its line)"
	}
	s := name.String() + ": " + msg.String()
	if name.String() == "ReferenceError" {
		if id, ok := strings.CutSuffix(msg.String(), " is not defined"); ok {
			if h, ok := hints[id]; ok {
				s += ": " + h
			}
		}
	}
	return s
}
