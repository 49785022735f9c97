package sandbox

import (
	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	gojatoken "github.com/dop251/goja/token"
)

// A builtin installed as a method of the object it converts calls itself in
// Go: `o.toString = String.prototype.trim; String(o)` makes String call
// o.toString, which is trim, which converts its this, o, to a string by
// calling o.toString again — with no JavaScript frame in between, so goja's
// call-stack limit never sees it, until Go's 1 GB stack overflows, which is
// a fatal error that kills the whole process. The same holds for every
// method goja calls to convert an object (toString, valueOf,
// Symbol.toPrimitive, join for Array's toString, toISOString for Date's
// toJSON, getters), and for the data a builtin converts (Error's toString
// converts this.name and this.message, RegExp's this.source and
// this.flags): `e.name = e; String(e)`.
//
// So a builtin is counted where a script makes it such a method, and the
// builtins that convert data are counted where a script can give them
// their own object as data. A counted builtin is a wrapper that tracks how
// deeply counted calls are nested on the run's goroutine; past the run's
// call-stack size plus MaxNesting — deeper than any script's own calls
// reach, since every JavaScript frame between two counted calls also
// counts toward the call-stack size — it throws a RangeError the script
// can catch.
//
//   - Installing by syntax: Parse rewrites the value of `o.toString = v`,
//     `o['valueOf'] = v` and `o[k] = v`, of the keys {toString: v}, {[k]:
//     v} and {toString}, and of class fields so named (the names of
//     conversionKeys, or computed), into %hook(v) (rewrite.go). %hook
//     returns v, or, for a builtin or bound function, a counted wrapper of
//     it, the same one each time (so `o.toString === String.prototype.trim`
//     is false afterwards). A script's own functions are left alone: their
//     frames count already.
//   - Installing by reflection: Object.defineProperty, defineProperties,
//     create, assign and fromEntries, Reflect.defineProperty and set, and
//     __defineGetter__/__defineSetter__ where goja has them hook the
//     builtins they install (guardInstallers, guardApply), for a script that
//     can reach them.
//   - Data: Error.prototype.toString, and RegExp.prototype.toString, its
//     flags getter and its Symbol methods for a script that can make a
//     regexp, are counted (guardData) for a script that can write name,
//     message, source, flags or cause, or reach the reflection.
//   - A destructuring or compound assignment to such a member (`[o.toString]
//     = [f]`, `o.toString ||= f`) is rare; a script with one gets every
//     builtin that converts this counted (guardConversions), the costly
//     way: String.prototype's, Array.prototype's, Object.prototype's
//     toString and toLocaleString, Date.prototype.toJSON.
//
// Function.prototype.apply, Reflect.apply and Reflect.construct also
// refuse an argument list longer than the budget's element count
// (memory.go; guardApply): goja copies the holes of a sparse one natively.

// conversionTargets are the methods guardConversions wraps on each
// prototype; "*" is every own method but constructor and the iterators.
var conversionTargets = map[string][]string{
	"String.prototype": {"*"},
	"Array.prototype":  {"*"},
	"Object.prototype": {"toString", "toLocaleString"},
	"Date.prototype":   {"toJSON"},
}

// skipped are the methods "*" leaves alone: goja uses its own array
// iterator natively (for…of, spread) only while Array.prototype.values is
// its own function, and an iterator converts nothing when made.
var skipped = map[string]bool{"constructor": true, "values": true, "keys": true, "entries": true}

// guardConversions counts every builtin that converts this (see above).
func (r *Runtime) guardConversions() {
	if r.conversionsGuarded {
		return
	}
	r.conversionsGuarded = true
	vm := r.VM
	protos := map[string]*goja.Object{
		"String.prototype": vm.ToValue("").ToObject(vm).Prototype(),
		"Array.prototype":  r.arrayProto,
		"Object.prototype": vm.NewObject().Prototype(),
	}
	if c, ok := vm.GlobalObject().Get("Date").(*goja.Object); ok {
		protos["Date.prototype"], _ = c.Get("prototype").(*goja.Object)
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
			if !skipped[name] {
				r.countMethod(o, name, "")
			}
		}
	}
	if o := protos["Date.prototype"]; o != nil {
		r.countSymbolMethod(o, goja.SymToPrimitive)
	}
	r.guardData(true)
}

// guardData counts the builtins that convert data of their this (see
// above); RegExp's with regexps, for a script that can make one.
func (r *Runtime) guardData(regexps bool) {
	if !r.dataGuarded {
		r.dataGuarded = true
		r.countMethod(r.VM.NewTypeError("").Prototype().Prototype(), "toString", "")
	}
	if !regexps || r.regexpDataGuarded {
		return
	}
	r.regexpDataGuarded = true
	if c, ok := r.VM.GlobalObject().Get("RegExp").(*goja.Object); ok {
		if p, ok := c.Get("prototype").(*goja.Object); ok {
			r.countMethod(p, "toString", "")
			r.countGetter(p, "flags")
			for _, sym := range []*goja.Symbol{goja.SymMatch, goja.SymMatchAll, goja.SymReplace, goja.SymSearch, goja.SymSplit} {
				r.countSymbolMethod(p, sym)
			}
		}
	}
}

// guardApply size-checks the argument lists of apply, and, when the script
// can reach Reflect (withReflect), those of Reflect.apply and construct;
// Reflect.set and defineProperty then hook what they install.
func (r *Runtime) guardApply(withReflect bool) {
	if !r.applyGuarded {
		r.applyGuarded = true
		r.countMethod(r.functionProto, "apply", "Function.prototype.apply")
	}
	if withReflect && !r.reflectGuarded {
		r.reflectGuarded = true
		if o, ok := r.VM.GlobalObject().Get("Reflect").(*goja.Object); ok {
			r.countMethod(o, "apply", "Reflect.apply")
			r.countMethod(o, "construct", "Reflect.construct")
			r.hookArgs(o, "set", 2)
			r.hookDescriptors(o, "defineProperty", 2, false)
		}
	}
}

// guardInstallers makes the reflection that installs methods hook the
// builtins it installs (see above).
func (r *Runtime) guardInstallers() {
	if r.installersGuarded {
		return
	}
	r.installersGuarded = true
	obj, ok := r.VM.GlobalObject().Get("Object").(*goja.Object)
	if !ok {
		return
	}
	r.hookDescriptors(obj, "defineProperty", 2, false)
	r.hookDescriptors(obj, "defineProperties", 1, true)
	r.hookDescriptors(obj, "create", 1, true)
	r.hookResult(obj, "assign")
	r.hookResult(obj, "fromEntries")
	proto := r.VM.NewObject().Prototype()
	r.hookArgs(proto, "__defineGetter__", 1)
	r.hookArgs(proto, "__defineSetter__", 1)
}

// hookArgs wraps o[name] so that its argument i is hooked.
func (r *Runtime) hookArgs(o *goja.Object, name string, i int) {
	r.rewrap(o, name, func(call goja.FunctionCall) {
		if i < len(call.Arguments) {
			call.Arguments[i] = r.hookValue(call.Arguments[i])
		}
	}, nil)
}

// hookDescriptors wraps o[name] so that the descriptor in argument i (or,
// with many, each descriptor of the object in argument i) is replaced by
// a copy whose value, get and set are hooked.
func (r *Runtime) hookDescriptors(o *goja.Object, name string, i int, many bool) {
	r.rewrap(o, name, func(call goja.FunctionCall) {
		if i >= len(call.Arguments) {
			return
		}
		d, ok := call.Arguments[i].(*goja.Object)
		if !ok {
			return
		}
		if !many {
			call.Arguments[i] = r.hookDescriptor(d)
			return
		}
		copied := r.VM.NewObject()
		for _, k := range d.Keys() {
			v := d.Get(k)
			if dd, ok := v.(*goja.Object); ok {
				v = r.hookDescriptor(dd)
			}
			_ = copied.Set(k, v)
		}
		call.Arguments[i] = copied
	}, nil)
}

// hookDescriptor returns d, or a copy of it with its value, get and set
// hooked when any of them is a builtin.
func (r *Runtime) hookDescriptor(d *goja.Object) goja.Value {
	changed := false
	vals := map[string]goja.Value{}
	for _, k := range []string{"value", "get", "set"} {
		if v := d.Get(k); v != nil {
			h := r.hookValue(v)
			changed = changed || h != v
			vals[k] = h
		}
	}
	if !changed {
		return d
	}
	c := r.VM.NewObject()
	for _, k := range []string{"value", "get", "set", "writable", "enumerable", "configurable"} {
		if v, ok := vals[k]; ok {
			_ = c.Set(k, v)
		} else if v := d.Get(k); v != nil {
			_ = c.Set(k, v)
		}
	}
	return c
}

// hookResult wraps o[name] so that the builtins among the own enumerable
// data of the object it returns (assign's target, fromEntries' result) are
// hooked.
func (r *Runtime) hookResult(o *goja.Object, name string) {
	r.rewrap(o, name, nil, func(call goja.FunctionCall, res goja.Value) {
		out, ok := res.(*goja.Object)
		if !ok {
			return
		}
		for _, k := range out.Keys() {
			v := out.Get(k)
			if h := r.hookValue(v); h != v {
				_ = out.Set(k, h)
			}
		}
	})
}

// rewrap replaces o[name] by a method that runs before on its arguments,
// the original, and after on its result.
func (r *Runtime) rewrap(o *goja.Object, name string, before func(goja.FunctionCall), after func(goja.FunctionCall, goja.Value)) {
	f, ok := o.Get(name).(*goja.Object)
	if !ok {
		return
	}
	orig, ok := goja.AssertFunction(f)
	if !ok {
		return
	}
	length := int(f.Get("length").ToInteger())
	r.defineMethod(o, name, length, func(call goja.FunctionCall) goja.Value {
		call.Arguments = append([]goja.Value(nil), call.Arguments...)
		if before != nil {
			before(call)
		}
		v, err := orig(call.This, call.Arguments...)
		if err != nil {
			panic(err)
		}
		if after != nil {
			after(call, v)
		}
		return v
	})
}

// countMethod replaces o[name], a data property holding a function, by a
// counted wrapper with its name and length. sized names a method whose
// argument list (its last argument) is size-checked first.
func (r *Runtime) countMethod(o *goja.Object, name, sized string) {
	f, ok := o.Get(name).(*goja.Object)
	if !ok {
		return
	}
	if _, isFn := goja.AssertFunction(f); !isFn {
		return
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

// conversionKeys are the methods goja calls to convert an object (or that
// a builtin it calls so calls); conversionData the data such a builtin
// converts (e.name = e makes Error.prototype.toString call itself).
var (
	conversionKeys = map[string]bool{"toString": true, "valueOf": true, "toLocaleString": true, "join": true,
		"toISOString": true, "toJSON": true}
	conversionData = map[string]bool{"name": true, "message": true, "source": true, "flags": true, "cause": true}
	// installerNames reach the reflection that installs methods
	// (guardInstallers); so do a computed member, globalThis and this.
	installerNames = []string{"defineProperty", "defineProperties", "create", "assign", "fromEntries",
		"__defineGetter__", "__defineSetter__", "Reflect", "constructor"}
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

// writesData reports an assignment target that may write what
// guardData's builtins convert: e.name = …, or a computed member.
func writesData(target ast.Expression) bool {
	switch t := target.(type) {
	case *ast.DotExpression:
		return conversionData[t.Identifier.Name.String()]
	case *ast.BracketExpression:
		if s, ok := t.Member.(*ast.StringLiteral); ok {
			return conversionData[s.Value.String()]
		}
		_, num := t.Member.(*ast.NumberLiteral)
		return !num
	}
	return false
}

// writesMethodElsewhere reports an assignment that installs a conversion
// method where %hook cannot see it: a destructuring pattern or a compound
// operator whose targets include such a member (see patternMembers).
func writesMethodElsewhere(op gojatoken.Token, target ast.Expression) bool {
	switch target.(type) {
	case *ast.DotExpression, *ast.BracketExpression, *ast.Identifier:
		return op != gojatoken.ASSIGN && op != gojatoken.PLUS && installsMethod(target)
	}
	return anyMember(target, func(e ast.Expression) bool { return installsMethod(e) || writesData(e) })
}
