package sandbox

import (
	"fmt"
	"reflect"

	"github.com/dop251/goja/ast"
	gojatoken "github.com/dop251/goja/token"
)

// A workflow has no clock, randomness, timers or modules: Date.now(),
// new Date() without arguments, Date() and Math.random() throw, and
// require and the timers do not exist (see Load). A script that uses them
// fails when the line is reached, possibly after agents were paid for, so
// Parse also finds them in the source, and the engine refuses them before
// anything runs, with each one's line and column.
//
// A use inside `typeof` (a feature test) is not one, and neither is a name
// the script binds itself.

// AbsentUse is one use of something a workflow does not have.
type AbsentUse struct {
	// What is the use as the script writes it: "Date.now()", "require()".
	What         string
	Line, Column int
	// Why says why it is absent and what to write instead.
	Why string
}

// AbsentUses returns the script's uses of what a workflow does not have,
// in source order.
func (s *Script) AbsentUses() []AbsentUse { return s.absent }

const (
	whyClock  = "runs must replay identically: pass the time in args (new Date(args.now) works)"
	whyRandom = "runs must replay identically: pass a seed in args"
)

// absentCalls are the callee names a workflow lacks. Why each is absent is
// the hint its ReferenceError carries (hints, errors.go), so that the
// check before the run and the error a run would end with say the same.
var absentCalls = map[string]bool{
	"require": true, "setTimeout": true, "setInterval": true, "setImmediate": true,
	"clearTimeout": true, "clearInterval": true, "clearImmediate": true,
}

// absentWhy is why the callee name is absent.
func absentWhy(name string) string {
	if h, ok := hints[name]; ok {
		return h
	}
	return "timers are not available in a workflow: there is no clock; await agent() results instead"
}

// absentWalk finds absent uses and the names the script binds.
type absentWalk struct {
	s     *Script
	uses  []absentFound
	bound map[string]bool
}

type absentFound struct {
	root string // the global the use needs: Date, Math, require, …
	use  AbsentUse
}

// findAbsent records the absent uses of prg, less those of names the
// script binds.
func (s *Script) findAbsent(prg *ast.Program) {
	w := &absentWalk{s: s, bound: map[string]bool{}}
	w.walk(reflect.ValueOf(prg))
	for _, f := range w.uses {
		if !w.bound[f.root] {
			s.absent = append(s.absent, f.use)
		}
	}
}

func (w *absentWalk) found(root, what, why string, n ast.Node) {
	line, col := w.s.posOfIdx(n.Idx0())
	w.uses = append(w.uses, absentFound{root: root, use: AbsentUse{What: what, Line: line, Column: col, Why: why}})
}

func (w *absentWalk) walk(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || v.Type() == fileType {
			return
		}
		switch n := v.Interface().(type) {
		case *ast.UnaryExpression:
			if _, ok := n.Operand.(*ast.Identifier); ok && n.Operator == gojatoken.TYPEOF {
				return // typeof require: a feature test
			}
		case *ast.NewExpression:
			if id, ok := n.Callee.(*ast.Identifier); ok && id.Name == "Date" && len(n.ArgumentList) == 0 {
				w.found("Date", "new Date()", "new Date() without arguments is not available: "+whyClock, n)
			}
		case *ast.CallExpression:
			w.call(n)
		case *ast.Binding:
			if id, ok := n.Target.(*ast.Identifier); ok {
				w.bound[id.Name.String()] = true
			}
		case *ast.FunctionLiteral:
			if n.Name != nil {
				w.bound[n.Name.Name.String()] = true
			}
		case *ast.ClassLiteral:
			if n.Name != nil {
				w.bound[n.Name.Name.String()] = true
			}
		}
		w.walk(v.Elem())
	case reflect.Interface:
		if !v.IsNil() {
			w.walk(v.Elem())
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			w.walk(v.Index(i))
		}
	case reflect.Struct:
		if v.Type() == identifierType {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				w.walk(v.Field(i))
			}
		}
	}
}

// call notes a call of Date(), Date.now(), Math.random() or an absent
// function.
func (w *absentWalk) call(c *ast.CallExpression) {
	switch callee := c.Callee.(type) {
	case *ast.Identifier:
		name := callee.Name.String()
		if name == "Date" {
			w.found("Date", "Date()", "Date() is not available: "+whyClock, c)
		} else if absentCalls[name] {
			w.found(name, name+"()", fmt.Sprintf("%s is not available: %s", name, absentWhy(name)), c)
		}
	case *ast.DotExpression:
		left, ok := callee.Left.(*ast.Identifier)
		if !ok {
			return
		}
		switch left.Name.String() + "." + callee.Identifier.Name.String() {
		case "Date.now":
			w.found("Date", "Date.now()", "Date.now() is not available: "+whyClock, c)
		case "Math.random":
			w.found("Math", "Math.random()", "Math.random() is not available: "+whyRandom, c)
		}
	}
}
