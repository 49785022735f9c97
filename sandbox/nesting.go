package sandbox

import (
	"fmt"
	"strconv"

	"github.com/dop251/goja"

	"github.com/wfrun/wfrun/internal/wferr"
)

// goja bounds JavaScript recursion (Options.MaxCallStackSize counts JS
// frames), but several of its builtins recurse in Go, one Go call per level
// of the value they walk, without passing through a JS frame. On a value
// nested a few million levels deep (`for (…) a = [a]` builds one in a
// second) that overflows Go's 1 GB goroutine stack, which is a fatal error
// that kills the whole process, not a panic anyone can recover; JSON.stringify
// also checks for cycles in O(depth) per level, so before it crashes it runs
// for hours inside Go code, where the run's deadline cannot interrupt it.
//
// So every such builtin a script can reach is bounded here, at MaxNesting
// levels of the value it walks, and answers with an error instead:
//
//   - JSON.stringify and ExportJSON pass a Go replacer to goja's stringify
//     that tracks how deep the value being serialised is (the holder of each
//     call is its parent) and throws a RangeError past MaxNesting; ExportJSON
//     reports that as RESOURCE_LIMIT. A script's replacer function is called
//     from it; a replacer array (an allowlist of keys) is applied by handing
//     goja a copy of each object with only those keys.
//   - JSON.parse and ParseJSON scan the text for bracket depth (outside
//     strings) before parsing, in O(n); deeper text is a SyntaxError
//     (INVALID_REQUEST for ParseJSON). A reviver is applied by a walk here
//     that counts its depth, since a reviver can graft a deep value into the
//     part still to be walked.
//   - Array.prototype.join and toLocaleString count how deeply they are
//     nested in one another; String(a), `${a}`, a + '' and
//     Array.prototype.toString all reach join. Deeper than MaxNesting is a
//     RangeError.
//   - Array.prototype.flat with a depth above MaxNesting (flat(Infinity))
//     flattens with an explicit stack instead of goja's recursion.
//   - Function.prototype.bind: a bound function calls its target from Go, so
//     a chain of bound functions, or of natives bound to call one another
//     (Function.prototype.call.bind(f)), recurses in Go when called. bind
//     records on each bound function how many bound functions lie under it
//     (its target, this and arguments) and refuses a chain deeper than
//     MaxNesting.
//   - Proxy is absent: goja forwards every operation on a proxy of a proxy in
//     Go, and workflows have no use for proxies.
//
// The gaps that remain are listed in doc.go.

// MaxNesting is how many levels deep a value may nest for the builtins that
// walk it recursively (JSON.stringify, JSON.parse, String of an array,
// flat), and how deep bound functions may chain. Real data is a few dozen
// levels deep at most.
const MaxNesting = 1000

// jsonContext is the state of one bounded JSON.stringify call.
type jsonContext struct {
	stack    []*goja.Object // the objects being serialised, outermost first
	origs    []*goja.Object // with an allowlist: the originals of the copies in stack
	user     goja.Callable  // the script's replacer function, if any
	keys     []string       // the script's replacer array (allowlist), if any
	hasKeys  bool
	tooDeep  bool // the replacer threw because the value nests too deeply
	circular bool // with an allowlist: the replacer threw for a cycle
}

// guardJSON installs the bounded JSON.stringify and JSON.parse; it runs for
// scripts that name JSON (lazy.go).
func (r *Runtime) guardJSON(json *goja.Object) {
	r.defineMethod(json, "stringify", 3, r.scriptStringify)
	r.defineMethod(json, "parse", 2, r.scriptParse)
}

// guardBind installs the bounded Function.prototype.bind; Load runs it for
// a script that can reach bind (Script.bindReach).
func (r *Runtime) guardBind(functionProto *goja.Object) {
	r.origBind, _ = goja.AssertFunction(functionProto.Get("bind"))
	r.defineMethod(functionProto, "bind", 1, r.bind)
}

// stringify is JSON.stringify(v, replacer, space) bounded to MaxNesting
// levels. It returns the context so that callers can tell a nesting error
// from other throws.
func (r *Runtime) stringify(v, replacer, space goja.Value) (goja.Value, *jsonContext, error) {
	r.captureJSON()
	rep, _ := replacer.(*goja.Object)
	if _, isObj := v.(*goja.Object); !isObj && rep == nil {
		out, err := r.jsonStringify(goja.Undefined(), v, goja.Undefined(), space)
		return out, nil, err
	}
	c := &jsonContext{}
	if rep != nil {
		if f, ok := goja.AssertFunction(rep); ok {
			c.user = f
		} else if rep.ClassName() == "Array" {
			c.hasKeys = true
			c.keys = allowlist(rep)
		}
	}
	if r.replacer == nil {
		r.replacer = r.VM.ToValue(r.replace)
	}
	r.jsonContexts = append(r.jsonContexts, c)
	defer func() { r.jsonContexts = r.jsonContexts[:len(r.jsonContexts)-1] }()
	out, err := r.jsonStringify(goja.Undefined(), v, r.replacer, space)
	return out, c, err
}

// allowlist returns the keys of a replacer array as JSON.stringify reads
// them: strings, numbers and their wrapper objects, each once, in order.
func allowlist(a *goja.Object) []string {
	n := a.Get("length").ToInteger()
	seen := make(map[string]bool, n)
	keys := make([]string, 0, n)
	for i := int64(0); i < n; i++ {
		v := a.Get(strconv.FormatInt(i, 10))
		if o, ok := v.(*goja.Object); ok {
			if c := o.ClassName(); c != "Number" && c != "String" {
				continue
			}
		} else if v == nil {
			continue
		} else if _, ok := v.Export().(string); !ok && !isNumber(v) {
			continue
		}
		k := v.String()
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys
}

func isNumber(v goja.Value) bool {
	switch v.Export().(type) {
	case int64, float64:
		return true
	}
	return false
}

// replace is the replacer goja's stringify calls for every value: this is
// the holder, the object whose property is being serialised. The objects
// on the context's stack are the holder's ancestors and the holder; ones
// that are not have been finished. An object value about to be serialised
// is pushed, so the stack's length is its depth.
func (r *Runtime) replace(call goja.FunctionCall) goja.Value {
	c := r.jsonContexts[len(r.jsonContexts)-1]
	h, _ := call.This.(*goja.Object)
	n := len(c.stack)
	for n > 0 && c.stack[n-1] != h {
		n--
	}
	c.stack = c.stack[:n]
	if c.hasKeys {
		c.origs = c.origs[:n]
	}
	v := call.Argument(1)
	if c.user != nil {
		var err error
		if v, err = c.user(h, call.Argument(0), v); err != nil {
			panic(err)
		}
	}
	o, ok := v.(*goja.Object)
	if !ok {
		return v
	}
	if _, fn := goja.AssertFunction(o); fn {
		return v // serialised as undefined
	}
	switch o.ClassName() {
	case "Number", "String", "Boolean", "BigInt", "RawJSON":
		return v // serialised as a primitive
	}
	if n >= MaxNesting {
		c.tooDeep = true
		panic(r.newError("RangeError", "JSON.stringify: the value nests deeper than %d levels; flatten it, or serialise the deep part separately", MaxNesting))
	}
	if c.hasKeys && o.ClassName() != "Array" {
		for _, p := range c.origs {
			if p == o {
				c.circular = true
				panic(r.newError("TypeError", "Converting circular structure to JSON"))
			}
		}
		orig := o
		o = r.VM.NewObject()
		for _, k := range c.keys {
			_ = o.DefineDataProperty(k, orig.Get(k), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
		}
		c.origs = append(c.origs, orig)
	} else if c.hasKeys {
		c.origs = append(c.origs, o)
	}
	c.stack = append(c.stack, o)
	return o
}

// scriptStringify is the script's JSON.stringify.
func (r *Runtime) scriptStringify(call goja.FunctionCall) goja.Value {
	out, _, err := r.stringify(call.Argument(0), call.Argument(1), call.Argument(2))
	if err != nil {
		panic(err)
	}
	return out
}

// scriptParse is the script's JSON.parse: goja's, after a scan of the
// text's nesting, with a bounded reviver walk.
func (r *Runtime) scriptParse(call goja.FunctionCall) goja.Value {
	text := call.Argument(0).ToString()
	if depthExceeds(text.String(), MaxNesting) {
		panic(r.newError("SyntaxError", "JSON.parse: the text nests deeper than %d levels", MaxNesting))
	}
	r.captureJSON()
	v, err := r.jsonParse(goja.Undefined(), text)
	if err != nil {
		panic(err)
	}
	reviver, ok := goja.AssertFunction(call.Argument(1))
	if !ok {
		return v
	}
	root := r.VM.NewObject()
	_ = root.DefineDataProperty("", v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
	return r.revive(reviver, root, "", 0)
}

// revive is JSON.parse's InternalizeJSONProperty, counting its depth.
func (r *Runtime) revive(reviver goja.Callable, holder *goja.Object, key string, depth int) goja.Value {
	v := holder.Get(key)
	if v == nil {
		v = goja.Undefined()
	}
	if o, ok := v.(*goja.Object); ok {
		if depth >= MaxNesting {
			panic(r.newError("RangeError", "JSON.parse: the reviver made the value nest deeper than %d levels", MaxNesting))
		}
		var keys []string
		if o.ClassName() == "Array" {
			n := o.Get("length").ToInteger()
			keys = make([]string, n)
			for i := range keys {
				keys[i] = strconv.Itoa(i)
			}
		} else {
			keys = o.Keys()
		}
		for _, k := range keys {
			nv := r.revive(reviver, o, k, depth+1)
			if goja.IsUndefined(nv) {
				_ = o.Delete(k)
			} else {
				_ = o.DefineDataProperty(k, nv, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
			}
		}
	}
	out, err := reviver(holder, r.VM.ToValue(key), v)
	if err != nil {
		panic(err)
	}
	return out
}

// depthExceeds reports whether JSON text nests brackets more than max
// levels deep, not counting brackets inside strings. It does not validate
// anything else: the parser does that.
func depthExceeds[T string | []byte](s T, max int) bool {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[', '{':
			if depth++; depth > max {
				return true
			}
		case ']', '}':
			depth--
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		}
	}
	return false
}

// guardArrays bounds Array.prototype's recursive methods (see the top of
// this file).
func (r *Runtime) guardArrays(proto *goja.Object) {
	r.arrayProto = proto
	for _, name := range []string{"join", "toLocaleString"} {
		orig, _ := goja.AssertFunction(proto.Get(name))
		length := int(proto.Get(name).(*goja.Object).Get("length").ToInteger())
		r.defineMethod(proto, name, length, func(call goja.FunctionCall) goja.Value {
			// Sized by this.length (memory.go): goja walks every index of
			// a sparse array, and writes a separator between each two.
			n := r.lengthOf(call.This)
			r.checkSlots("Array.prototype."+name, n)
			if sep := call.Argument(0); name == "join" && n > 1 && !goja.IsUndefined(sep) {
				r.checkChars("Array.prototype.join", (n-1)*float64(len(sep.String())))
			}
			if r.joinDepth >= MaxNesting {
				panic(r.newError("RangeError", "Array.prototype.%s: the array nests deeper than %d levels; flatten it before turning it into a string", name, MaxNesting))
			}
			r.joinDepth++
			defer func() { r.joinDepth-- }()
			v, err := orig(call.This, call.Arguments...)
			if err != nil {
				panic(err)
			}
			return v
		})
	}
	flat, _ := goja.AssertFunction(proto.Get("flat"))
	r.defineMethod(proto, "flat", 0, func(call goja.FunctionCall) goja.Value {
		r.checkSlots("Array.prototype.flat", r.lengthOf(call.This))
		return r.flat(flat, call)
	})
}

// flat is Array.prototype.flat. A depth up to MaxNesting is goja's; a
// deeper one (flat(Infinity)) is flattened here, iteratively.
func (r *Runtime) flat(orig goja.Callable, call goja.FunctionCall) goja.Value {
	depth := float64(1)
	if d := call.Argument(0); !goja.IsUndefined(d) {
		if depth = d.ToFloat(); depth != depth { // NaN
			depth = 0
		}
	}
	if depth <= MaxNesting {
		v, err := orig(call.This, r.VM.ToValue(depth))
		if err != nil {
			panic(err)
		}
		return v
	}
	// flat(0) creates the result as flat does (through the species
	// constructor) and copies the top level into it without holes.
	v, err := orig(call.This, r.VM.ToValue(0))
	if err != nil {
		panic(err)
	}
	res, ok := v.(*goja.Object)
	if !ok {
		return v
	}
	out := flatten(res, depth)
	if res.Prototype() == r.arrayProto && res.ClassName() == "Array" {
		items := make([]any, len(out))
		for i, x := range out {
			items[i] = x
		}
		return r.VM.NewArray(items...)
	}
	for i, x := range out { // a species constructor made res: fill it in place
		_ = res.DefineDataProperty(strconv.Itoa(i), x, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
	}
	_ = res.Set("length", len(out))
	return res
}

// flatten returns the elements of the array a with nested arrays flattened
// depth levels deep, skipping holes, as FlattenIntoArray does, with an
// explicit stack instead of Go recursion.
func flatten(a *goja.Object, depth float64) []goja.Value {
	type frame struct {
		a     *goja.Object
		i, n  int64
		depth float64
	}
	var out []goja.Value
	stack := []frame{{a, 0, a.Get("length").ToInteger(), depth}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.i >= f.n {
			stack = stack[:len(stack)-1]
			continue
		}
		e := f.a.Get(strconv.FormatInt(f.i, 10))
		f.i++
		if e == nil {
			continue // a hole
		}
		if o, ok := e.(*goja.Object); ok && f.depth > 0 && o.ClassName() == "Array" {
			stack = append(stack, frame{o, 0, o.Get("length").ToInteger(), f.depth - 1})
			continue
		}
		out = append(out, e)
	}
	return out
}

// bind is Function.prototype.bind, refusing chains of bound functions deeper
// than MaxNesting (see the top of this file).
func (r *Runtime) bind(call goja.FunctionCall) goja.Value {
	if r.bindDepth == nil {
		r.bindDepth = goja.NewSymbol("wfrun.bindDepth")
	}
	depth := r.boundDepth(call.This)
	for _, a := range call.Arguments {
		depth = max(depth, r.boundDepth(a))
	}
	if depth >= MaxNesting {
		panic(r.newError("RangeError", "Function.prototype.bind: bound functions nest deeper than %d levels; call the functions in a loop instead", MaxNesting))
	}
	v, err := r.origBind(call.This, call.Arguments...)
	if err != nil {
		panic(err)
	}
	if o, ok := v.(*goja.Object); ok {
		_ = o.DefineDataPropertySymbol(r.bindDepth, r.VM.ToValue(depth+1), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
	}
	return v
}

// boundDepth is the number of bound functions chained under v (0 for
// anything that bind did not make).
func (r *Runtime) boundDepth(v goja.Value) int {
	o, ok := v.(*goja.Object)
	if !ok {
		return 0
	}
	d := o.GetSymbol(r.bindDepth)
	if d == nil {
		return 0
	}
	return int(d.ToInteger())
}

// newError makes an error of the intrinsic class name (RangeError,
// SyntaxError, TypeError) with a formatted message, to be thrown with panic.
func (r *Runtime) newError(class, format string, args ...any) *goja.Object {
	msg := fmt.Sprintf(format, args...)
	if class == "TypeError" {
		return r.VM.NewTypeError(msg)
	}
	ctor, ok := r.errorCtors[class]
	if !ok {
		ctor = r.VM.GlobalObject().Get(class)
		if r.errorCtors == nil {
			r.errorCtors = make(map[string]goja.Value, 2)
		}
		r.errorCtors[class] = ctor
	}
	o, err := r.VM.New(ctor, r.VM.ToValue(msg))
	if err != nil {
		return r.VM.NewTypeError(msg)
	}
	return o
}

// nestingError is the error ExportJSON returns for a value that nests too
// deeply.
func nestingError(err error) error {
	return wferr.Wrap(wferr.ResourceLimit, err,
		"the value nests deeper than %d levels, which JSON output from a workflow cannot: return a flatter value (for example a list of records instead of a chain of nested ones)", MaxNesting)
}
