package sandbox

import (
	"strings"
	"sync"
	"time"

	"github.com/dop251/goja"

	"github.com/wfrun/wfrun/internal/wferr"
)

// DefaultMaxCallStackSize is the call depth Options{} allows.
const DefaultMaxCallStackSize = 2000

// Options configures New. The zero value is ready to use.
type Options struct {
	// MaxCallStackSize bounds the JavaScript call depth; deeper calls end the
	// run with RESOURCE_LIMIT. 0 means DefaultMaxCallStackSize.
	MaxCallStackSize int
	// MaxMemory is the run's memory budget in bytes: the builtins that
	// allocate by argument refuse more (memory.go), with RESOURCE_LIMIT.
	// 0 means DefaultMaxMemory.
	MaxMemory int64
	// RegexpTimeout bounds the time one regexp call (test, exec, match,
	// replace, split, …) may take; a slower call ends the run with
	// RESOURCE_LIMIT, which the script cannot catch. 0 means
	// DefaultRegexpTimeout, which is also the most it can be: regexp2 gives
	// up on a match soon after it, process-wide, and a given-up match must
	// not read as "no match" (see regexp.go). Larger values are lowered to
	// it.
	RegexpTimeout time.Duration
}

// Runtime is a hardened goja runtime for one run. It is not safe for
// concurrent use: only the run's loop goroutine may touch it (the one
// exception is VM.Interrupt, which goja allows from any goroutine).
type Runtime struct {
	// VM is the goja runtime. The runtime package adds its host functions
	// (agent, parallel, console, …) to its global object. Only the goroutine
	// that owns the Runtime may touch VM — in a run, its loop goroutine,
	// which hands the Runtime to every callback it runs — with one
	// exception: VM.Interrupt may be called from any goroutine.
	VM *goja.Runtime

	jsonParse, jsonStringify goja.Callable   // the originals (see captureJSON): scripts may replace the global JSON
	scripts                  map[string]bool // names of the loaded scripts, whose frames carry the user's positions
	maxStack                 int
	lazy                     lazyGlobals
	installer                goja.Callable // prelude.js, run on the first lazy install
	rewriteFn                goja.Value    // rewriteRegExpSource, for the RegExp installer
	allocFn                  goja.Value    // allocCheck, for the installers of sized constructors (memory.go)
	noFunction               *goja.Object  // the disabled Function constructor
	generatorsPatched        bool
	wellFormed               bool            // String.prototype.isWellFormed and toWellFormed are defined
	installed                map[string]bool // gated globals already extended or replaced
	thrower                  goja.Callable   // rethrows its argument; see RejectionError

	regexpTimeout           time.Duration // see regexp.go
	regexpsTimed, execTimed bool          // the regexp methods are timed
	matchAllNext            goja.Callable // the next of matchAll's iterators
	regexpErr               *wferr.Error  // a regexp call ran over: the VM is being interrupted
	regexpOff               bool          // the regexp timeout is off (SetLimitsLive)

	mem            memoryLimits // see memory.go
	stringsGuarded bool         // String.prototype's sized methods are checked
	arraysGuarded  bool         // Array.prototype's length-bound methods are checked

	// See conversion.go.
	conversionsGuarded, dataGuarded, regexpDataGuarded bool
	applyGuarded, reflectGuarded, installersGuarded    bool
	conversionDepth                                    int                           // how deeply the counted builtins are nested
	hooked                                             map[*goja.Object]*goja.Object // builtins installed as conversion methods → their counted wrappers
	funcToString                                       goja.Callable                 // the original Function.prototype.toString

	// See nesting.go.
	jsonContexts  []*jsonContext // the bounded JSON.stringify calls under way, innermost last
	replacer      goja.Value     // the replacer that bounds them
	joinDepth     int            // how deeply Array.prototype.join and toLocaleString are nested
	arrayProto    *goja.Object
	origBind      goja.Callable // goja's Function.prototype.bind, once guardBind has run
	functionProto *goja.Object  // Function.prototype, for guardBind
	bindDepth     *goja.Symbol  // marks bound functions with the depth of their chain
	errorCtors    map[string]goja.Value

	// See rewrite.go.
	helperValues []goja.Value  // the size-checking helpers a rewritten script is passed
	plainAdd     goja.Callable // goja's own + on primitives, for BigInt
}

// New returns a runtime with only the ECMAScript builtins, the sandbox's
// polyfills, URL and URLSearchParams, and the determinism guards: Date.now(),
// new Date(), Date() and Math.random() throw, and eval and the Function
// constructors are disabled. It has no require, process, timers or console,
// and no Proxy. The builtins that recurse in Go are bounded (nesting.go).
// Some of this is done by Load, for the script it loads, before any of its
// code runs (lazy.go): code run straight on VM, which only the host does,
// sees goja's Date, Math.random, eval, RegExp, JSON and Proxy until a
// script that names them has been loaded.
func New(opts Options) *Runtime {
	vm := goja.New()
	n := opts.MaxCallStackSize
	if n <= 0 {
		n = DefaultMaxCallStackSize
	}
	vm.SetMaxCallStackSize(n)
	r := &Runtime{VM: vm, scripts: make(map[string]bool, 1), maxStack: n, regexpTimeout: regexpTimeout(opts),
		mem: newMemoryLimits(opts.MaxMemory)}
	g := vm.GlobalObject()

	r.disableFunctionConstructors()
	// Kept now, guarded in Load for a script that can reach bind: a script
	// loaded earlier into this runtime may have replaced the global Function.
	r.functionProto = g.Get("Function").(*goja.Object).Get("prototype").(*goja.Object)
	// From an array, not from Array: building the Array constructor costs
	// more than the rest of this guard.
	r.guardArrays(vm.NewArray().Prototype())

	r.lazy = lazyGlobals{r: r, pending: make(map[string]bool, len(lazyNames))}
	for _, name := range lazyNames {
		r.lazy.pending[name] = true
	}
	dyn := vm.NewDynamicObject(&r.lazy)
	_ = dyn.SetPrototype(g.Prototype())
	_ = g.SetPrototype(dyn)
	return r
}

// captureJSON keeps goja's own JSON.parse and JSON.stringify, the first
// time either is needed: by the host (ExportJSON, ParseJSON), or when a
// script that names JSON is loaded, before its code runs. Until then no
// script code can have replaced them, since only the global object leads to
// JSON (lazy.go), and building JSON costs a suspended run 3.5 KB it need
// not hold. Code run straight on VM by a host or a test that replaces JSON
// before either is different: that is the host's own choice.
func (r *Runtime) captureJSON() {
	if r.jsonParse != nil {
		return
	}
	j := r.VM.GlobalObject().Get("JSON").(*goja.Object)
	r.jsonParse, _ = goja.AssertFunction(j.Get("parse"))
	r.jsonStringify, _ = goja.AssertFunction(j.Get("stringify"))
}

// disableFunctionConstructors replaces the Function constructor — the
// global, Function.prototype.constructor and AsyncFunction's — by one that
// throws a TypeError saying why. GeneratorFunction's is replaced in Load,
// and only for scripts that contain a generator: goja builds the generator
// machinery on first use, and that costs more than the rest of New.
func (r *Runtime) disableFunctionConstructors() {
	vm := r.VM
	g := vm.GlobalObject()
	fp := g.Get("Function").(*goja.Object).Get("prototype").(*goja.Object)
	fv, err := vm.RunProgram(noFunctionProgram())
	if err != nil {
		panic(err)
	}
	f := fv.(*goja.Object)
	_ = f.DefineDataProperty("prototype", fp, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
	r.noFunction = f
	_ = fp.DefineDataProperty("constructor", f, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = g.DefineDataProperty("Function", f, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	v, err := vm.RunProgram(asyncProgram())
	if err != nil {
		panic(err)
	}
	_ = v.(*goja.Object).Prototype().DefineDataProperty("constructor", f, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// disableGeneratorConstructor replaces GeneratorFunction.prototype.constructor.
func (r *Runtime) disableGeneratorConstructor() {
	if r.generatorsPatched {
		return
	}
	r.generatorsPatched = true
	v, err := r.VM.RunProgram(generatorProgram())
	if err != nil {
		panic(err)
	}
	_ = v.(*goja.Object).Prototype().DefineDataProperty("constructor", r.noFunction, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// noFunctionProgram evaluates to the disabled Function constructor (a JS
// function, so that both calling and new-ing it throw the TypeError).
var noFunctionProgram = sync.OnceValue(func() *goja.Program {
	return goja.MustCompile(preludeName, `(function Function(body) {
  throw new TypeError('new Function is not available in a workflow: write the function in the script itself');
})`, true)
})

var asyncProgram = sync.OnceValue(func() *goja.Program {
	return goja.MustCompile(preludeName, "(async function(){})", true)
})

var generatorProgram = sync.OnceValue(func() *goja.Program {
	return goja.MustCompile(preludeName, "(function*(){})", true)
})

// installGated extends or replaces the gated globals s names, and installs
// the other guards that only a script naming something can reach (see
// lazy.go).
func (r *Runtime) installGated(s *Script) {
	all := s.refs["globalThis"] || s.refs["this"]
	if !r.wellFormed && (all || s.refs["isWellFormed"] || s.refs["toWellFormed"] || strings.Contains(s.Source, "WellFormed")) {
		r.wellFormed = true
		vm := r.VM
		sp := vm.GlobalObject().Get("String").(*goja.Object).Get("prototype").(*goja.Object)
		r.defineMethod(sp, "isWellFormed", 0, func(c goja.FunctionCall) goja.Value { return isWellFormed(c, vm) })
		r.defineMethod(sp, "toWellFormed", 0, func(c goja.FunctionCall) goja.Value { return toWellFormed(c, vm) })
	}
	for _, name := range gatedNames {
		if r.installed[name] || !all && !s.refs[name] {
			continue
		}
		if r.installed == nil {
			r.installed = make(map[string]bool, len(gatedNames))
		}
		r.installed[name] = true
		g := r.VM.GlobalObject()
		orig := g.Get(name)
		switch v := r.install(name, orig); {
		case v == nil:
			_ = g.Delete(name)
		case v != orig:
			defineGlobal(r.VM, name, v)
		}
	}
}

// defineMethod defines a non-enumerable method like a builtin's.
func (r *Runtime) defineMethod(o *goja.Object, name string, length int, fn func(goja.FunctionCall) goja.Value) {
	f := r.VM.ToValue(fn).(*goja.Object)
	_ = f.DefineDataProperty("name", r.VM.ToValue(name), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = f.DefineDataProperty("length", r.VM.ToValue(length), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = o.DefineDataProperty(name, f, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// Load evaluates s's program in this runtime and returns the function F that
// starts the script: F(args, workflow) returns the promise of the body's
// result. Positions of errors thrown by s are mapped back to s.Source.
func (r *Runtime) Load(s *Script) (goja.Callable, error) {
	r.scripts[s.Name] = true
	if s.generators {
		r.disableGeneratorConstructor()
	}
	r.installGated(s)
	if s.stringReach {
		r.guardStrings()
	}
	if s.arrayReach {
		r.guardArrayLengths()
	}
	if s.bindReach && r.origBind == nil {
		r.guardBind(r.functionProto)
	}
	r.timeRegexps(s)
	if r.funcToString == nil && (s.helpers || s.installerReach || s.reflectReach || s.conversionReach) {
		// Before this script's code runs: a script that could replace
		// Function.prototype.toString (by assignment, computed member,
		// reflection or pattern) reaches this line first, and %hook needs
		// the original to tell builtins apart (rewrite.go).
		r.funcToString, _ = goja.AssertFunction(r.functionProto.Get("toString"))
	}
	if s.conversionReach {
		r.guardConversions()
	}
	if s.installerReach {
		r.guardInstallers()
	}
	if s.dataReach {
		r.guardData(s.regexps)
	}
	if s.applyReach {
		r.guardApply(s.reflectReach)
	}
	v, err := r.VM.RunProgram(s.program)
	if err != nil {
		return nil, r.Error(err)
	}
	fn, ok := goja.AssertFunction(v)
	if !ok {
		return nil, wferr.New(wferr.Internal, "sandbox: script %s did not evaluate to a function", s.Name)
	}
	if !s.helpers {
		return fn, nil
	}
	helpers := r.helpers()
	return func(this goja.Value, args ...goja.Value) (goja.Value, error) {
		all := make([]goja.Value, 2, 2+len(helpers))
		for i := range min(len(args), 2) {
			all[i] = args[i]
		}
		for i := len(args); i < 2; i++ {
			all[i] = goja.Undefined()
		}
		return fn(this, append(all, helpers...)...)
	}, nil
}
