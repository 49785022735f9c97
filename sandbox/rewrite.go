package sandbox

import (
	"reflect"
	"strings"
	"sync"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	gojatoken "github.com/dop251/goja/token"
	"github.com/dop251/goja/unistring"

	"github.com/wfrun/wfrun/internal/human"
)

// Two things a script writes grow memory inside one goja operation, where
// neither the run's deadline nor the heap watchdog can stop it before the
// process holds several times the run's budget:
//
//   - Concatenation. `s += s` doubles a string per step, and goja builds
//     each result in one allocation: the step after the one the watchdog
//     notices already asks for twice the budget, and a second later the
//     process holds gigabytes.
//   - Spreading. `[...a]`, f(...a) and `const [x, ...rest] = a` walk a's
//     indices natively, holes included: an array whose length was set to
//     2^32−1 makes goja loop four billion times and ask for 64 GB, with no
//     instruction boundary where an interrupt could land.
//
// So Parse rewrites them, on the syntax tree, into calls of Go helpers that
// check the size first (Runtime.concat, template, sized), with the budget's
// limits of memory.go:
//
//   - `a + b` where neither side is a literal, and `x += v` where v is not
//     one and x is a name or a member of a name (o.p, o[k]), become
//     %concat(a, b) and x = %concat(x, v). A literal side only grows a string
//     linearly, which the watchdog sees in time; `i + 1` stays as fast as
//     it was. A join may build at most half the string limit: the parts and
//     the result are alive at once, so a doubling loop ends with the heap
//     within the budget.
//   - A template with two or more substitutions, `${a}${b}`, becomes
//     %template(s0, a, s1, b, s2). (Its substitutions are all evaluated
//     before any is turned into a string; only a toString with side effects
//     could tell.)
//   - The operand of a spread element and the source of an array
//     destructuring with a rest element become %sized(x), which refuses an
//     array longer than the budget's element count and returns x.
//
// The same rewrite hooks builtins installed as conversion methods
// (%hook, conversion.go). The helpers are parameters of the wrapper's outer
// function, only for a script that uses one, whose names
// (starting with %) no script can write, shadow or reassign; Load passes
// them. A with statement can still put an object with such a key in scope:
// that script escapes only to the heap watchdog.
const (
	concatName   unistring.String = "%concat"
	templateName unistring.String = "%template"
	sizedName    unistring.String = "%sized"
	hookName     unistring.String = "%hook"
)

// helperNames are the extra parameters of the wrapper, in the order Load
// passes them.
var helperNames = []unistring.String{concatName, templateName, sizedName, hookName}

var expressionType = reflect.TypeOf((*ast.Expression)(nil)).Elem()

// rewriteSizes applies the rewrites above to the body of outer (the
// wrapper's outer function) and adds the helpers as its parameters when it
// rewrote anything, which it reports. skip (the meta initializer, which
// package meta reads as data) is left as written.
func rewriteSizes(outer *ast.FunctionLiteral, skip ast.Expression) bool {
	rw := sizeRewriter{skip: skip}
	rw.walk(reflect.ValueOf(outer.Body))
	if !rw.used {
		return false // nothing to check: the wrapper keeps its two parameters
	}
	for _, n := range helperNames {
		outer.ParameterList.List = append(outer.ParameterList.List, &ast.Binding{Target: &ast.Identifier{Name: n, Idx: outer.Function}})
	}
	return true
}

type sizeRewriter struct {
	skip ast.Expression
	used bool // a helper was called
}

// call is helperCall, noting that a helper is used.
func (rw *sizeRewriter) call(name unistring.String, args ...ast.Expression) *ast.CallExpression {
	rw.used = true
	return helperCall(name, args...)
}

// walk visits v's exported fields depth first and replaces, in place, every
// expression that needs a size check.
func (rw *sizeRewriter) walk(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || v.Type() == fileType {
			return
		}
		rw.walk(v.Elem())
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		if e, ok := v.Interface().(ast.Expression); ok && rw.skip != nil && e == rw.skip {
			return
		}
		rw.walk(v.Elem())
		if v.Type() == expressionType && v.CanSet() {
			if e := rw.rewrite(v.Interface().(ast.Expression)); e != nil {
				v.Set(reflect.ValueOf(&e).Elem())
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			rw.walk(v.Index(i))
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				rw.walk(v.Field(i))
			}
		}
		if v.CanAddr() {
			switch x := v.Addr().Interface().(type) {
			case *ast.Binding:
				if hasRest(x.Target) && x.Initializer != nil {
					x.Initializer = rw.call(sizedName, x.Initializer)
				}
			case *ast.FieldDefinition:
				if x.Initializer != nil && (x.Computed || conversionKeys[keyName(x.Key)]) {
					x.Initializer = rw.call(hookName, x.Initializer)
				}
			}
		}
	}
}

// rewrite returns the replacement of e, or nil to keep it. e's children are
// already rewritten.
func (rw *sizeRewriter) rewrite(e ast.Expression) ast.Expression {
	switch x := e.(type) {
	case *ast.BinaryExpression:
		if x.Operator == gojatoken.PLUS && !isLiteral(x.Left) && !isLiteral(x.Right) {
			return rw.call(concatName, x.Left, x.Right)
		}
	case *ast.AssignExpression:
		switch {
		case x.Operator == gojatoken.PLUS && !isLiteral(x.Right) && simpleTarget(x.Left):
			return &ast.AssignExpression{Operator: gojatoken.ASSIGN, Left: x.Left, Right: rw.call(concatName, x.Left, x.Right)}
		case x.Operator == gojatoken.ASSIGN && hasRest(x.Left):
			x.Right = rw.call(sizedName, x.Right)
		case x.Operator == gojatoken.ASSIGN && installsMethod(x.Left):
			x.Right = rw.call(hookName, x.Right)
		}
	case *ast.TemplateLiteral:
		if x.Tag == nil && len(x.Expressions) >= 2 {
			// %template(s0, e0, s1, e1, …, sN): the cooked strings at even
			// positions, the substitutions at odd ones.
			args := make([]ast.Expression, 0, len(x.Elements)+len(x.Expressions))
			for i, el := range x.Elements {
				args = append(args, &ast.StringLiteral{Idx: el.Idx, Literal: "``", Value: el.Parsed})
				if i < len(x.Expressions) {
					args = append(args, x.Expressions[i])
				}
			}
			return rw.call(templateName, args...)
		}
	case *ast.ObjectLiteral:
		for i, p := range x.Value {
			switch p := p.(type) {
			case *ast.PropertyKeyed:
				if p.Kind == ast.PropertyKindValue && (p.Computed || conversionKeys[keyName(p.Key)]) {
					p.Value = rw.call(hookName, p.Value)
				}
			case *ast.PropertyShort:
				if conversionKeys[p.Name.Name.String()] && p.Initializer == nil {
					name := p.Name
					x.Value[i] = &ast.PropertyKeyed{Key: &ast.StringLiteral{Idx: name.Idx, Literal: `"` + name.Name.String() + `"`, Value: name.Name},
						Kind: ast.PropertyKindValue, Value: rw.call(hookName, &name)}
				}
			}
		}
	case *ast.SpreadElement:
		x.Expression = rw.call(sizedName, x.Expression)
	}
	return nil
}

// helperCall is the call name(args…), positioned at the first argument.
func helperCall(name unistring.String, args ...ast.Expression) *ast.CallExpression {
	at := args[0].Idx0()
	return &ast.CallExpression{Callee: &ast.Identifier{Name: name, Idx: at}, LeftParenthesis: at,
		ArgumentList: args, RightParenthesis: args[len(args)-1].Idx1()}
}

// isLiteral reports a side of + that cannot double a string: a literal.
func isLiteral(e ast.Expression) bool {
	switch x := e.(type) {
	case *ast.StringLiteral, *ast.NumberLiteral, *ast.BooleanLiteral, *ast.NullLiteral:
		return true
	case *ast.TemplateLiteral:
		return x.Tag == nil && len(x.Expressions) == 0
	}
	return false
}

// simpleTarget reports an assignment target that `x = %concat(x, v)`
// evaluates as `x += v` does: a name, or a member of a name or of this with
// a literal or a name as the key.
func simpleTarget(e ast.Expression) bool {
	switch x := e.(type) {
	case *ast.Identifier:
		return true
	case *ast.DotExpression:
		return simpleObject(x.Left)
	case *ast.BracketExpression:
		return simpleObject(x.Left) && (isLiteral(x.Member) || isIdentifier(x.Member))
	}
	return false
}

func simpleObject(e ast.Expression) bool {
	switch e.(type) {
	case *ast.Identifier, *ast.ThisExpression:
		return true
	}
	return false
}

func isIdentifier(e ast.Expression) bool {
	_, ok := e.(*ast.Identifier)
	return ok
}

// hasRest reports an array pattern with a rest element, which walks its
// source to the end.
func hasRest(e ast.Expression) bool {
	switch x := e.(type) {
	case *ast.ArrayPattern:
		return x.Rest != nil
	case *ast.ArrayLiteral: // an assignment target before the parser turns it into a pattern
		if n := len(x.Value); n > 0 {
			_, ok := x.Value[n-1].(*ast.SpreadElement)
			return ok
		}
	}
	return false
}

// helpers are the Go values Load passes for helperNames.
func (r *Runtime) helpers() []goja.Value {
	if r.helperValues == nil {
		r.helperValues = []goja.Value{r.VM.ToValue(r.concat), r.VM.ToValue(r.template), r.VM.ToValue(r.sized), r.VM.ToValue(r.hook)}
	}
	return r.helperValues
}

// concat is `a + b` (ECMAScript's ApplyStringOrNumericBinaryOperator for
// +), refusing a string longer than the budget allows.
func (r *Runtime) concat(call goja.FunctionCall) goja.Value {
	a, b := call.Argument(0), call.Argument(1)
	as, aok := a.(goja.String)
	bs, bok := b.(goja.String)
	if aok && bok {
		r.checkConcat(as.Length() + bs.Length())
		return as.Concat(bs)
	}
	if _, ok := a.(*goja.Object); ok {
		a = r.toPrimitive(a.(*goja.Object))
	}
	if _, ok := b.(*goja.Object); ok {
		b = r.toPrimitive(b.(*goja.Object))
	}
	as, aok = a.(goja.String)
	bs, bok = b.(goja.String)
	switch {
	case aok || bok:
		if !aok {
			as = r.str(a)
		}
		if !bok {
			bs = r.str(b)
		}
		r.checkConcat(as.Length() + bs.Length())
		return as.Concat(bs)
	case goja.IsBigInt(a) || goja.IsBigInt(b):
		return r.plain(a, b)
	}
	return r.VM.ToValue(a.ToFloat() + b.ToFloat())
}

// plain is goja's own + on two primitives (BigInt arithmetic and its
// TypeErrors).
func (r *Runtime) plain(a, b goja.Value) goja.Value {
	if r.plainAdd == nil {
		v, err := r.VM.RunProgram(plainAddProgram())
		if err != nil {
			panic(err)
		}
		r.plainAdd, _ = goja.AssertFunction(v)
	}
	v, err := r.plainAdd(goja.Undefined(), a, b)
	if err != nil {
		panic(err)
	}
	return v
}

// toPrimitive is ToPrimitive(o, default): o[Symbol.toPrimitive]("default"),
// else valueOf, else toString.
func (r *Runtime) toPrimitive(o *goja.Object) goja.Value {
	if m := o.GetSymbol(goja.SymToPrimitive); m != nil && !goja.IsUndefined(m) && !goja.IsNull(m) {
		f, ok := goja.AssertFunction(m)
		if !ok {
			panic(r.VM.NewTypeError("Symbol.toPrimitive is not a function"))
		}
		v, err := f(o, r.VM.ToValue("default"))
		if err != nil {
			panic(err)
		}
		if _, isObj := v.(*goja.Object); isObj {
			panic(r.VM.NewTypeError("Cannot convert object to primitive value"))
		}
		return v
	}
	for _, name := range [2]string{"valueOf", "toString"} {
		if f, ok := goja.AssertFunction(o.Get(name)); ok {
			v, err := f(o)
			if err != nil {
				panic(err)
			}
			if _, isObj := v.(*goja.Object); !isObj {
				return v
			}
		}
	}
	panic(r.VM.NewTypeError("Cannot convert object to primitive value"))
}

// template is an untagged template literal with substitutions:
// template(s0, e0, s1, e1, …, sN), the cooked strings at even positions.
func (r *Runtime) template(call goja.FunctionCall) goja.Value {
	total := 0
	for i, v := range call.Arguments {
		s, ok := v.(goja.String)
		if !ok {
			s = r.str(v)
			call.Arguments[i] = s
		}
		total += s.Length()
	}
	r.checkConcat(total)
	var b goja.StringBuilder
	b.Grow(total)
	for _, v := range call.Arguments {
		b.WriteString(v.(goja.String))
	}
	return b.String()
}

// sized returns its argument after refusing an array longer than the
// budget's element count, which spreading or a rest element would walk.
func (r *Runtime) sized(call goja.FunctionCall) goja.Value {
	v := call.Argument(0)
	if o, ok := v.(*goja.Object); ok && o.ClassName() == "Array" {
		r.checkSlots("spreading an array ([...a], f(...a), [x, ...rest] = a)", r.lengthOf(o))
	}
	return v
}

// str is ToString of a primitive or an object, as a goja string.
func (r *Runtime) str(v goja.Value) goja.String {
	if o, ok := v.(*goja.Object); ok {
		v = o.ToString() // ToPrimitive(o, string), then ToString
	}
	if s, ok := v.(goja.String); ok {
		return s
	}
	if _, isSym := v.(*goja.Symbol); isSym {
		panic(r.VM.NewTypeError("Cannot convert a Symbol value to a string"))
	}
	return r.VM.ToValue(v.String()).(goja.String)
}

// hook returns its argument, or, for a builtin (or bound) function, a
// counted wrapper of it (conversion.go): the script is installing it as a
// method that goja calls to convert the object (toString, valueOf, join, a
// computed key that may be Symbol.toPrimitive), where a builtin that
// converts this would call itself in Go. The same builtin gets the same
// wrapper each time.
func (r *Runtime) hook(call goja.FunctionCall) goja.Value {
	return r.hookValue(call.Argument(0))
}

// hookValue is hook's answer for v.
func (r *Runtime) hookValue(v goja.Value) goja.Value {
	o, ok := v.(*goja.Object)
	if !ok {
		return v
	}
	if w, ok := r.hooked[o]; ok {
		return w
	}
	if _, callable := goja.AssertFunction(o); !callable || !r.isNative(o) {
		return v
	}
	w := r.VM.ToValue(r.counted(o, "")).(*goja.Object)
	_ = w.DefineDataProperty("name", o.Get("name"), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	_ = w.DefineDataProperty("length", o.Get("length"), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	if r.hooked == nil {
		r.hooked = make(map[*goja.Object]*goja.Object)
	}
	r.hooked[o], r.hooked[w] = w, w
	return w
}

// isNative reports a function goja implements in Go (a builtin or a bound
// function), by the original Function.prototype.toString.
func (r *Runtime) isNative(f *goja.Object) bool {
	if r.funcToString == nil {
		return false
	}
	v, err := r.funcToString(f)
	return err == nil && strings.HasSuffix(v.String(), "{ [native code] }")
}

// installsMethod reports an assignment target that may install a method
// goja calls to convert an object: o.toString, o['valueOf'], or a computed
// member o[k], which may be any of them.
func installsMethod(target ast.Expression) bool {
	switch t := target.(type) {
	case *ast.DotExpression:
		return conversionKeys[t.Identifier.Name.String()]
	case *ast.BracketExpression:
		if s, ok := t.Member.(*ast.StringLiteral); ok {
			return conversionKeys[s.Value.String()]
		}
		_, num := t.Member.(*ast.NumberLiteral)
		return !num
	}
	return false
}

// checkConcat refuses a concatenation of n characters when it is longer
// than half the strings a builtin may build: joining holds the parts and
// the result at once, so a doubling loop stops with the heap within the
// budget, not at twice it.
func (r *Runtime) checkConcat(n int) {
	if limit := r.mem.maxChars / 2; int64(n) > limit {
		r.refuse("joining strings (+, +=, `${a}${b}`) would build a string of %s characters; a run may join strings of at most %s, half of what its memory limit allows since the parts and the result are held at once (its memory limit is %s): build less text, or ask an agent to produce it",
			count(float64(n)), count(float64(limit)), human.Bytes(r.mem.budget))
	}
}

var plainAddProgram = sync.OnceValue(func() *goja.Program {
	return goja.MustCompile(preludeName, "(function (a, b) { return a + b })", true)
})
