package sandbox

import "github.com/dop251/goja"

// Building the sandbox's globals costs far more than goja.New: goja
// materialises a builtin (RegExp, Map, Promise, …) the first time anything
// reads it, ~20µs each. So each global is built at the latest moment that is
// still safe:
//
//   - New replaces the Function constructors and bounds Array's join,
//     toLocaleString and flat at once: any script reaches them without
//     naming them (every function's .constructor, implicit string
//     conversion).
//   - Load bounds bind for a script that can reach it (Script.bindReach):
//     one that writes bind (s.bind, s['bind']), computes a member or key,
//     uses reflection (reflectionNames), or names globalThis or this. No
//     builtin calls bind for a script.
//   - The host's own JSON.parse and stringify are read on first need
//     (captureJSON), at the latest when a script that names JSON is loaded.
//   - New adds structuredClone, URL and URLSearchParams as lazy globals: a
//     lazyGlobals object sits between the global object and
//     Object.prototype, and the first read of such a name builds it and
//     defines it on the global object.
//   - Load extends or replaces the gated globals (gatedNames) that the
//     script names, before any of its code runs. A script that names
//     globalThis or uses `this` gets all of them. A gated global reached
//     another way (`/x/.constructor`, `[].constructor`) is goja's original:
//     it lacks the polyfill (an error), and goja's original RegExp built from
//     a string matches \p{…} wrongly — the one known gap. JSON and Proxy are
//     gated too, and have no such gap: no object leads to them but the
//     global object. JSON gets the bounded stringify and parse, and Proxy is
//     removed (nesting.go). So are the determinism guards on Date,
//     Math.random and eval, with no gap either: only the global object leads
//     to Math and eval, and no builtin but Date makes a Date object (whose
//     .constructor would lead to it). String.prototype.isWellFormed and
//     toWellFormed are defined for a script that names either, or whose
//     source contains "WellFormed" at all (s['isWellFormed']()), or that
//     names globalThis or this. A later script loaded into the same runtime
//     (a nested workflow) gets what it names before its code runs.
//   - Load also times the RegExp methods that match, for a script that can
//     make a regexp (regexp.go).
var (
	lazyNames  = []string{"structuredClone", "URL", "URLSearchParams"}
	gatedNames = []string{"Date", "Math", "eval", "RegExp", "Object", "Map", "Set", "WeakMap", "WeakSet", "Promise", "Array", "JSON", "Proxy",
		"ArrayBuffer", "SharedArrayBuffer", "Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array",
		"Int32Array", "Uint32Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array", "Float16Array"}
	gated = func() map[string]bool {
		m := map[string]bool{"isWellFormed": true, "toWellFormed": true, "globalThis": true}
		for _, n := range gatedNames {
			m[n] = true
		}
		for _, n := range stringReachNames {
			m[n] = true
		}
		for _, n := range arrayReachNames {
			m[n] = true
		}
		return m
	}()
)

// lazyGlobals is the object between the global object and Object.prototype
// that builds the lazy globals on first read: the read misses the global
// object, reaches Get, which builds the value (Runtime.install), defines it on
// the global object as an ordinary non-enumerable data property, and returns
// it; later reads never reach lazyGlobals again. The only visible trace is
// that Object.getPrototypeOf(globalThis) is not Object.prototype.
type lazyGlobals struct {
	r       *Runtime
	pending map[string]bool // names not yet built
}

var _ goja.DynamicObject = (*lazyGlobals)(nil)

// Get installs and returns the global key, or returns nil when key is not
// (or no longer) pending.
func (l *lazyGlobals) Get(key string) goja.Value {
	if !l.pending[key] {
		return nil
	}
	delete(l.pending, key) // before install: an installer may read other lazy globals
	v := l.r.install(key, nil)
	l.define(key, v)
	return v
}

// settle defines key as v without running its installer.
func (l *lazyGlobals) settle(key string, v goja.Value) {
	if l.pending[key] {
		delete(l.pending, key)
		l.define(key, v)
	}
}

func (l *lazyGlobals) define(key string, v goja.Value) {
	defineGlobal(l.r.VM, key, v)
}

// defineGlobal defines a global like a builtin: writable, configurable, not
// enumerable.
func defineGlobal(vm *goja.Runtime, key string, v goja.Value) {
	_ = vm.GlobalObject().DefineDataProperty(key, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// Set is reached when a script assigns a pending global before reading it:
// the assignment wins and the builtin is never built.
func (l *lazyGlobals) Set(key string, v goja.Value) bool {
	if !l.pending[key] {
		return false
	}
	delete(l.pending, key)
	l.define(key, v)
	return true
}

// Has reports the names still to be built.
func (l *lazyGlobals) Has(key string) bool {
	return l.pending[key]
}

// Delete forgets a pending name: `delete globalThis.URL` removes it.
func (l *lazyGlobals) Delete(key string) bool {
	delete(l.pending, key)
	return true
}

// Keys is empty: builtins are not enumerable.
func (l *lazyGlobals) Keys() []string { return nil }
