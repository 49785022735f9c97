package sandbox

import (
	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
)

// A builtin installed as a method of the object it converts calls itself in
// Go: `o.toString = String.prototype.trim; String(o)` makes String call
// o.toString, which is trim, which converts its this, o, to a string by
// calling o.toString again — with no JavaScript frame in between, so goja's
// call-stack limit never sees it, until Go's 1 GB stack overflows, which is
// a fatal error that kills the whole process. The same holds for the
// builtins that convert this through any method or property a script can
// replace: toString, valueOf, Symbol.toPrimitive, join (Array's toString),
// toISOString (Date's toJSON), exec (RegExp's methods), name and message
// (Error's toString), source and flags (RegExp's toString), length (Array's
// generic methods), getters.
//
// So, for a script that can install such a method (Script.conversionReach),
// Load wraps those builtins in a counter of how deeply they are nested in
// one another on the run's goroutine: String.prototype's methods,
// Array.prototype's (but its iterators), RegExp.prototype's (and its flags
// getter), Object.prototype's toString and toLocaleString,
// Error.prototype.toString, Date.prototype's toJSON and Symbol.toPrimitive,
// and the natives that call another with arguments taken from data
// (Function.prototype.call and apply, Reflect.apply and construct). A call
// nested deeper than the run's call-stack size plus MaxNesting — deeper than
// any script's own calls reach, since every JavaScript frame between two
// counted calls also counts toward the call-stack size — throws a RangeError
// the script can catch. apply, Reflect.apply and Reflect.construct also
// refuse an argument list longer than the budget's element count
// (memory.go): goja copies the holes of a sparse one natively.

// conversionTargets are the methods wrapped on each prototype; "*" is every
// own method but constructor and the iterators.
var conversionTargets = map[string][]string{
	"String.prototype":   {"*"},
	"Array.prototype":    {"*"},
	"RegExp.prototype":   {"*"},
	"Object.prototype":   {"toString", "toLocaleString"},
	"Error.prototype":    {"toString"},
	"Date.prototype":     {"toJSON"},
	"Function.prototype": {"call", "apply"},
	"Reflect":            {"apply", "construct"},
}

// skipped are the methods "*" leaves alone: goja uses its own array
// iterator natively (for…of, spread) only while Array.prototype.values is
// its own function, and an iterator converts nothing when made.
var skipped = map[string]bool{"constructor": true, "values": true, "keys": true, "entries": true}

// guardConversions installs the counted wrappers (see above).
func (r *Runtime) guardConversions() {
	if r.conversionsGuarded {
		return
	}
	r.conversionsGuarded = true
	vm := r.VM
	g := vm.GlobalObject()
	protos := map[string]*goja.Object{
		"String.prototype":   vm.ToValue("").ToObject(vm).Prototype(),
		"Array.prototype":    r.arrayProto,
		"Object.prototype":   vm.NewObject().Prototype(),
		"Error.prototype":    vm.NewTypeError("").Prototype().Prototype(),
		"Function.prototype": r.functionProto,
	}
	for _, name := range []string{"RegExp", "Date"} {
		if c, ok := g.Get(name).(*goja.Object); ok {
			protos[name+".prototype"], _ = c.Get("prototype").(*goja.Object)
		}
	}
	if o, ok := g.Get("Reflect").(*goja.Object); ok {
		protos["Reflect"] = o
	}
	for where, names := range conversionTargets {
		o := protos[where]
		if o == nil {
			continue
		}
		if names[0] == "*" {
			names = o.GetOwnPropertyNames()
		}
		for _, name := range names {
			if skipped[name] {
				continue
			}
			r.countMethod(o, where, name)
		}
		switch where {
		case "RegExp.prototype":
			for _, sym := range []*goja.Symbol{goja.SymMatch, goja.SymMatchAll, goja.SymReplace, goja.SymSearch, goja.SymSplit} {
				r.countSymbolMethod(o, sym)
			}
			r.countGetter(o, "flags")
		case "Date.prototype":
			r.countSymbolMethod(o, goja.SymToPrimitive)
		}
	}
}

// countMethod replaces o[name], a data property holding a function, by a
// counted wrapper with its name and length.
func (r *Runtime) countMethod(o *goja.Object, where, name string) {
	v := o.Get(name)
	f, ok := v.(*goja.Object)
	if !ok {
		return
	}
	if _, isFn := goja.AssertFunction(f); !isFn {
		return // an accessor's value, or data
	}
	sized := ""
	switch where + "." + name {
	case "Function.prototype.apply":
		sized = "Function.prototype.apply"
	case "Reflect.apply":
		sized = "Reflect.apply"
	case "Reflect.construct":
		sized = "Reflect.construct"
	}
	length := int(f.Get("length").ToInteger())
	r.defineMethod(o, name, length, r.counted(f, sized))
}

// countSymbolMethod replaces o[sym] by a counted wrapper.
func (r *Runtime) countSymbolMethod(o *goja.Object, sym *goja.Symbol) {
	f, ok := o.GetSymbol(sym).(*goja.Object)
	if !ok {
		return
	}
	if _, isFn := goja.AssertFunction(f); !isFn {
		return
	}
	w := r.VM.ToValue(r.counted(f, "")).(*goja.Object)
	_ = w.DefineDataProperty("name", f.Get("name"), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	_ = w.DefineDataProperty("length", f.Get("length"), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	_ = o.DefineDataPropertySymbol(sym, w, goja.FLAG_TRUE, goja.FLAG_FALSE, goja.FLAG_TRUE)
}

// countGetter replaces the getter of the accessor o[name] by a counted one.
func (r *Runtime) countGetter(o *goja.Object, name string) {
	var desc *goja.Object
	if gopd, ok := goja.AssertFunction(r.VM.GlobalObject().Get("Object").(*goja.Object).Get("getOwnPropertyDescriptor")); ok {
		if d, err := gopd(goja.Undefined(), o, r.VM.ToValue(name)); err == nil {
			desc, _ = d.(*goja.Object)
		}
	}
	if desc == nil {
		return
	}
	get, ok := desc.Get("get").(*goja.Object)
	if !ok {
		return
	}
	w := r.VM.ToValue(r.counted(get, "")).(*goja.Object)
	_ = w.DefineDataProperty("name", get.Get("name"), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	_ = o.DefineAccessorProperty(name, w, desc.Get("set"), goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// counted wraps the native f in the nesting counter; sized names a method
// whose last argument is an argument list, which is size-checked first.
func (r *Runtime) counted(f *goja.Object, sized string) func(goja.FunctionCall) goja.Value {
	orig, _ := goja.AssertFunction(f)
	return func(call goja.FunctionCall) goja.Value {
		if sized != "" {
			i := 1
			if sized == "Reflect.apply" {
				i = 2
			}
			if a, ok := call.Argument(i).(*goja.Object); ok {
				r.checkSlots(sized, r.lengthOf(a))
			}
		}
		if r.conversionDepth >= r.maxStack+MaxNesting {
			panic(r.newError("RangeError", "Maximum call stack size exceeded: builtins call one another more than %d levels deep, which a builtin installed as the toString, valueOf, join or getter of the object it converts does; give the object a function of your own instead", r.maxStack+MaxNesting))
		}
		r.conversionDepth++
		defer func() { r.conversionDepth-- }()
		v, err := orig(call.This, call.Arguments...)
		if err != nil {
			panic(err)
		}
		return v
	}
}

// conversionKeys are the names whose definition as a key (o.k = v, {k: v},
// a class field k) can install a builtin as a method that converts its
// object; conversionData are the data such a builtin converts (e.name = e
// makes Error.prototype.toString call itself), which count as assignments
// only.
var (
	conversionKeys = map[string]bool{"toString": true, "valueOf": true, "toLocaleString": true, "join": true,
		"toISOString": true, "toJSON": true, "exec": true, "constructor": true}
	conversionData = map[string]bool{"name": true, "message": true, "source": true, "flags": true, "length": true,
		"cause": true}
	// conversionNames: naming any of these reaches the builtins some other way (a
	// descriptor, a prototype, reflection, bound arguments).
	conversionNames = []string{"toPrimitive", "toStringTag", "defineProperty", "defineProperties", "__defineGetter__",
		"__defineSetter__", "assign", "fromEntries", "create", "setPrototypeOf", "__proto__", "Reflect",
		"getOwnPropertyDescriptor", "getOwnPropertyDescriptors", "call", "apply", "bind", "species"}
)

// keyName is the literal name of a property key or member, or "".
func keyName(e ast.Expression) string {
	switch k := e.(type) {
	case *ast.StringLiteral:
		return k.Value.String()
	case *ast.Identifier:
		return k.Name.String()
	}
	return ""
}

// writesConversion reports an assignment target that may install a
// conversion method or the data one converts: o.toString = …, e.name = ….
func writesConversion(target ast.Expression) bool {
	var name string
	switch t := target.(type) {
	case *ast.DotExpression:
		name = t.Identifier.Name.String()
	case *ast.BracketExpression:
		if s, ok := t.Member.(*ast.StringLiteral); ok {
			name = s.Value.String()
		}
	}
	return conversionKeys[name] || conversionData[name]
}
