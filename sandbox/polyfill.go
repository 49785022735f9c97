package sandbox

import (
	_ "embed"
	"sync"

	"github.com/dop251/goja"
	"github.com/dop251/goja_nodejs/url"
)

// prelude.js holds the installers of everything the sandbox defines in
// JavaScript: the determinism guards on Date, Math.random and eval, the
// RegExp wrapper for run-time property escapes, and the polyfills for what
// goja lacks (Object.groupBy, Map.groupBy, Promise.withResolvers,
// Array.fromAsync, structuredClone). It is compiled once per process; a VM
// runs it only when a script first reads one of those globals.
//
//go:embed prelude.js
var preludeSource string

// preludeName labels the prelude's stack frames; Runtime.Error skips them
// when it looks for the user's position.
const preludeName = "<wfrun sandbox>"

var preludeProgram = sync.OnceValue(func() *goja.Program {
	return goja.MustCompile(preludeName, preludeSource, true)
})

// install builds the global name from goja's original value orig; nil
// means the global is removed.
func (r *Runtime) install(name string, orig goja.Value) goja.Value {
	vm := r.VM
	switch name {
	case "URL", "URLSearchParams":
		// url.Require builds the constructors without goja_nodejs's require
		// registry, which would cost ~28µs per VM and leave a `require`.
		module := vm.NewObject()
		exports := vm.NewObject()
		_ = module.Set("exports", exports)
		url.Require(vm, module)
		other := "URL"
		if name == "URL" {
			other = "URLSearchParams"
		}
		r.lazy.settle(other, exports.Get(other))
		return exports.Get(name)
	case "JSON":
		r.captureJSON()
		r.guardJSON(orig.(*goja.Object))
		return orig
	case "Proxy":
		return nil // removed: see nesting.go
	}
	if r.installer == nil {
		v, err := vm.RunProgram(preludeProgram())
		if err != nil {
			panic("sandbox: prelude failed: " + err.Error()) // a bug in prelude.js
		}
		r.installer, _ = goja.AssertFunction(v)
		r.rewriteFn = vm.ToValue(r.rewriteRegExpSource)
		r.allocFn = vm.ToValue(r.allocCheck)
	}
	if orig == nil {
		orig = goja.Undefined()
	}
	v, err := r.installer(goja.Undefined(), vm.ToValue(name), orig, r.rewriteFn, r.allocFn)
	if err != nil {
		panic(err) // surfaces as a throw in the script that read the global
	}
	return v
}

// rewriteRegExpSource is the Go half of the RegExp wrapper: it rewrites the
// property escapes of a u-mode pattern, or returns {error} with a sentence
// that the wrapper throws as a SyntaxError.
func (r *Runtime) rewriteRegExpSource(call goja.FunctionCall) goja.Value {
	out, msg := rewritePropertyEscapes(call.Argument(0).String())
	if msg != "" {
		o := r.VM.NewObject()
		_ = o.Set("error", msg)
		return o
	}
	return r.VM.ToValue(out)
}

// isWellFormed is String.prototype.isWellFormed.
func isWellFormed(call goja.FunctionCall, vm *goja.Runtime) goja.Value {
	s := thisString(call, vm, "isWellFormed")
	return vm.ToValue(firstLoneSurrogate(s, 0) < 0)
}

// toWellFormed is String.prototype.toWellFormed.
func toWellFormed(call goja.FunctionCall, vm *goja.Runtime) goja.Value {
	s := thisString(call, vm, "toWellFormed")
	i := firstLoneSurrogate(s, 0)
	if i < 0 {
		return s
	}
	var b goja.StringBuilder
	start := 0
	for i >= 0 {
		b.WriteSubstring(s, start, i)
		b.WriteRune(0xFFFD)
		start = i + 1
		i = firstLoneSurrogate(s, start)
	}
	b.WriteSubstring(s, start, s.Length())
	return b.String()
}

func thisString(call goja.FunctionCall, vm *goja.Runtime, method string) goja.String {
	if goja.IsUndefined(call.This) || goja.IsNull(call.This) {
		panic(vm.NewTypeError("String.prototype." + method + " called on null or undefined"))
	}
	return call.This.ToString().(goja.String)
}

// firstLoneSurrogate returns the index of the first unpaired UTF-16
// surrogate at or after from, or -1.
func firstLoneSurrogate(s goja.String, from int) int {
	n := s.Length()
	for i := from; i < n; i++ {
		c := s.CharAt(i)
		switch {
		case c >= 0xD800 && c <= 0xDBFF:
			if i+1 < n {
				if d := s.CharAt(i + 1); d >= 0xDC00 && d <= 0xDFFF {
					i++
					continue
				}
			}
			return i
		case c >= 0xDC00 && c <= 0xDFFF:
			return i
		}
	}
	return -1
}
