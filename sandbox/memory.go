package sandbox

import (
	"fmt"
	"math"

	"github.com/dop251/goja"

	"github.com/wfrun/wfrun/internal/human"
	"github.com/wfrun/wfrun/internal/wferr"
)

// goja has no memory limit, and one huge allocation does not fail in Go: it
// kills the whole process ("fatal error: runtime: out of memory"), which no
// recover can stop. `new ArrayBuffer(2**40)` asks Go for a terabyte at once;
// `'x'.repeat(2**30)` for a gigabyte; `new Array(2**32-1).map(f)` for 64 GB
// of slots before calling f once. So the builtins that allocate by argument
// are size-checked here, before they allocate, against the run's memory
// budget (Options.MaxMemory):
//
//   - strings: String.prototype.repeat, padStart, padEnd, and
//     Array.prototype.join's separators, may not build a string longer than
//     the smaller of MaxStringLength (V8's limit) and the budget in bytes;
//   - arrays: the Array constructor may not make a length above the budget's
//     element count (16 bytes a slot); Array.from may not read more items
//     than that from an array-like; the Array.prototype methods that walk or
//     copy this.length slots in Go (map, filter, forEach, fill, join, slice,
//     sort, toSorted, …) refuse a longer array, sparse or not — goja loops
//     over every index of a sparse array natively, where no deadline can
//     interrupt it;
//   - buffers: ArrayBuffer and the typed array constructors (and their
//     from) may not allocate more bytes than the budget.
//
// A refusal ends the run with RESOURCE_LIMIT and a sentence naming the
// limit: the runtime is interrupted (a JavaScript catch cannot see it) and
// the call throws so that nothing after it runs. What no builtin decides —
// `s += s` in a loop, pushing forever — is the heap watchdog's, in package
// runtime, and concatenation and spreading are checked by the helpers of
// rewrite.go. A length set by assignment (`a.length = 2**32-1`) then
// handed to a builtin not listed (new Set(a), new Map(a), String.raw) is
// the gap left; running the VM in a child process (--isolate process, the
// command line's default) closes it.

// DefaultMaxMemory is the memory budget of a run when Options.MaxMemory is 0.
const DefaultMaxMemory = 256 << 20

// MaxStringLength is the longest string a builtin may build, whatever the
// budget: V8's limit of 2^29 − 24 code units.
const MaxStringLength = 1<<29 - 24

// slotBytes is what one array element costs goja, at least.
const slotBytes = 16

// memoryLimits are the size checks of one runtime.
type memoryLimits struct {
	budget   int64 // bytes
	maxChars int64 // longest string a builtin may build
	maxSlots int64 // longest array a builtin may walk or make
}

func newMemoryLimits(budget int64) memoryLimits {
	if budget <= 0 {
		budget = DefaultMaxMemory
	}
	return memoryLimits{budget: budget, maxChars: min(MaxStringLength, budget), maxSlots: budget / slotBytes}
}

// refuse ends the run with RESOURCE_LIMIT: it records the error, interrupts
// the VM with it (the script cannot catch an interrupt) and throws, so that
// the builtin that asked returns nothing. Loop goroutine, inside a builtin.
func (r *Runtime) refuse(format string, args ...any) {
	line, col := r.CallerPosition()
	err := wferr.At(wferr.ResourceLimit, line, col, format, args...)
	r.VM.Interrupt(err)
	panic(r.VM.NewTypeError(err.Message))
}

// checkChars refuses a string of n characters built by what.
func (r *Runtime) checkChars(what string, n float64) {
	if n > float64(r.mem.maxChars) {
		r.refuse("%s would build a string of %s characters; a run's strings may hold at most %s (its memory limit is %s): build less text, or ask an agent to produce it",
			what, count(n), count(float64(r.mem.maxChars)), human.Bytes(r.mem.budget))
	}
}

// checkSlots refuses an array of n elements made or walked by what.
func (r *Runtime) checkSlots(what string, n float64) {
	if n > float64(r.mem.maxSlots) {
		r.refuse("%s would work on %s array elements; a run may use at most %s (its memory limit is %s): use smaller arrays, or batch the work",
			what, count(n), count(float64(r.mem.maxSlots)), human.Bytes(r.mem.budget))
	}
}

// checkBytes refuses a buffer of n bytes allocated by what.
func (r *Runtime) checkBytes(what string, n float64) {
	if n > float64(r.mem.budget) {
		r.refuse("%s would allocate %s; the run's memory limit is %s: use a smaller buffer", what, human.Bytes(int64(min(n, math.MaxInt64))), human.Bytes(r.mem.budget))
	}
}

func count(n float64) string {
	if n >= 1e15 {
		return fmt.Sprintf("%.3g", n)
	}
	return commas(int64(n))
}

func commas(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// number reads v as a JavaScript number without running script code for a
// primitive (an object's valueOf may run; that is the builtin's own
// semantics too).
func number(v goja.Value) float64 {
	if v == nil || goja.IsUndefined(v) {
		return math.NaN()
	}
	return v.ToFloat()
}

// integer is ToIntegerOrInfinity.
func integer(v goja.Value) float64 {
	f := number(v)
	if f != f {
		return 0
	}
	return math.Trunc(f)
}

// lengthOf is ToLength(o.length) for the this of an array method.
func (r *Runtime) lengthOf(this goja.Value) float64 {
	if this == nil || goja.IsUndefined(this) || goja.IsNull(this) {
		return 0
	}
	o := this.ToObject(r.VM)
	n := integer(o.Get("length"))
	return max(0, min(n, 1<<53-1))
}

// stringLength is the length of the string a string method works on.
func (r *Runtime) stringLength(this goja.Value) float64 {
	if this == nil || goja.IsUndefined(this) || goja.IsNull(this) {
		return 0
	}
	if _, ok := this.(*goja.Object); !ok {
		return float64(len(this.String())) // a primitive: its bytes bound its code units from above
	}
	return integer(this.ToString().ToObject(r.VM).Get("length"))
}

// guardStrings size-checks the String.prototype methods that build a string
// by argument. Load installs them for a script that can reach them (see
// Script.stringReach): building String.prototype alone costs a runtime
// about 5 KB, which most scripts never pay.
func (r *Runtime) guardStrings() {
	if r.stringsGuarded {
		return
	}
	r.stringsGuarded = true
	sp := r.VM.ToValue("").ToObject(r.VM).Prototype()
	r.wrapMethod(sp, "repeat", func(call goja.FunctionCall) {
		if n := integer(call.Argument(0)); n > 0 {
			r.checkChars("String.prototype.repeat", r.stringLength(call.This)*n)
		}
	})
	for _, name := range []string{"padStart", "padEnd"} {
		r.wrapMethod(sp, name, func(call goja.FunctionCall) {
			r.checkChars("String.prototype."+name, integer(call.Argument(0)))
		})
	}
}

// lengthBound are the Array.prototype methods that walk, copy or allocate
// this.length slots in Go. join, toLocaleString and flat are bounded in
// guardArrays, which checks their length too.
var lengthBound = []string{
	"concat", "copyWithin", "every", "fill", "filter", "find", "findIndex", "findLast", "findLastIndex",
	"flatMap", "forEach", "includes", "indexOf", "lastIndexOf", "map", "reduce", "reduceRight",
	"reverse", "slice", "some", "sort", "splice", "toReversed", "toSorted", "toSpliced", "with",
}

// guardArrayLengths size-checks the methods of lengthBound against the
// length of their this (and concat's arguments). Load installs them for a
// script that can give them a huge length other than through the guarded
// Array constructor (see Script.arrayReach): each wrapper costs about 1.4
// KB per runtime, so scripts that cannot do not pay for them.
func (r *Runtime) guardArrayLengths() {
	if r.arraysGuarded {
		return
	}
	r.arraysGuarded = true
	proto := r.arrayProto
	for _, name := range lengthBound {
		what := "Array.prototype." + name
		r.wrapMethod(proto, name, func(call goja.FunctionCall) {
			n := r.lengthOf(call.This)
			if name == "concat" {
				for _, a := range call.Arguments {
					if o, ok := a.(*goja.Object); ok && o.ClassName() == "Array" {
						n += r.lengthOf(o)
					}
				}
			}
			r.checkSlots(what, n)
		})
	}
}

// wrapMethod replaces o[name] by a method that runs check and then the
// original, with the original's length, as a builtin (non-enumerable).
func (r *Runtime) wrapMethod(o *goja.Object, name string, check func(goja.FunctionCall)) {
	v := o.Get(name)
	orig, ok := goja.AssertFunction(v)
	if !ok {
		return
	}
	length := int(v.(*goja.Object).Get("length").ToInteger())
	r.defineMethod(o, name, length, func(call goja.FunctionCall) goja.Value {
		check(call)
		res, err := orig(call.This, call.Arguments...)
		if err != nil {
			panic(err)
		}
		return res
	})
}

// allocCheck is the Go half of the constructor guards in prelude.js
// (ArrayBuffer, the typed arrays, Array, Array.from): alloc(what, count,
// bytesPer) refuses count elements of bytesPer bytes (bytesPer 0: array
// slots).
func (r *Runtime) allocCheck(call goja.FunctionCall) goja.Value {
	what := call.Argument(0).String()
	n := integer(call.Argument(1))
	per := integer(call.Argument(2))
	if per == 0 {
		r.checkSlots(what, n)
	} else {
		r.checkBytes(what, n*per)
	}
	return goja.Undefined()
}
