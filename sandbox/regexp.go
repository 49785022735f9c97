package sandbox

import (
	"sync"
	"time"

	"github.com/dlclark/regexp2/v2"
	"github.com/dop251/goja"

	"github.com/wfrun/wfrun/internal/wferr"
)

// goja matches a pattern that RE2 cannot express (lookaround,
// backreferences) with regexp2, which backtracks; so does a pattern RE2
// can express when the match starts past index 0 (lastIndex of a g or y
// regexp). /^(a+)+$/.test('a'.repeat(40) + 'b') then runs for ages inside Go
// code, where the Interrupt behind the run's deadline cannot reach. Two
// measures bound it:
//
//   - regexp2 gives up on any one match after regexp2MatchTimeout. goja
//     reads a given-up match as "no match", so this alone would turn a hang
//     into a silently wrong answer.
//   - So the runtime times every call that matches: RegExp.prototype.test
//     and exec, the [Symbol.match], [Symbol.replace], [Symbol.search] and
//     [Symbol.split] methods (String.prototype.match, replace, replaceAll,
//     search and split call them) and the next method of matchAll's
//     iterators, which is where matchAll matches. A call that took the
//     runtime's regexp timeout or longer interrupts the VM with
//     RESOURCE_LIMIT, which try/catch cannot catch. A given-up match always
//     measures longer than that timeout, so it never reads as an answer.
//
// The timing is installed by Load, and only for a script that can make a
// regexp: one with a regexp literal, or that names RegExp, match, matchAll
// or search (the String methods that turn a string argument into a regexp).
// replace, replaceAll and split with a string argument never make one.
// exec is wrapped only for a script that names exec: replacing
// RegExp.prototype.exec makes goja give up its fast paths for every regexp
// in the runtime (replace, split and match then call exec once per match,
// split once per position). Known gaps, like the gated globals' (lazy.go): a
// regexp made only through a computed name ('x'['mat' + 'ch']('(a+)+$')) or
// an exec reached only through one is not timed; regexp2 still gives up,
// and the answer may be wrong.

// DefaultRegexpTimeout is the regexp timeout Options{} gives, and the largest
// one a runtime accepts.
const DefaultRegexpTimeout = time.Second

// regexp2MatchTimeout is when regexp2 gives up on one match. regexp2 checks
// its deadline against a coarse clock that a goroutine advances every 100ms
// and that can lag behind time.Now under load, so a match may be given up
// slightly before regexp2MatchTimeout has really passed; the margin keeps
// every given-up match measuring at least DefaultRegexpTimeout.
const regexp2MatchTimeout = DefaultRegexpTimeout + 500*time.Millisecond

func init() {
	// regexp2 copies this package-level variable into each pattern it
	// compiles, and goja compiles patterns on any goroutine (in Parse, and
	// lazily while matching) with no way to set a timeout per pattern or per
	// runtime. Package initialization is the one moment no other goroutine
	// can be compiling. The setting holds for every user of regexp2 in the
	// process, which is the price of bounding goja's matches at all.
	//
	// With a timeout, regexp2 runs a clock goroutine (runClock) while
	// matches are under way; it exits about regexp2MatchTimeout + 1s after
	// the last regexp2 match started. Tests that check for leaked goroutines
	// ignore it with goleak.IgnoreAnyFunction("github.com/dlclark/regexp2/v2.runClock").
	regexp2.DefaultMatchTimeout = regexp2MatchTimeout
}

// regexpRefs are the names, besides RegExp, that let a script make a regexp
// or call exec; Parse notes them (unicode.go).
var regexpRefs = map[string]bool{"match": true, "matchAll": true, "search": true, "exec": true}

// maxRegexpLabel bounds the pattern quoted in a timeout error.
const maxRegexpLabel = 80

// regexpTimeout returns the timeout of opts: DefaultRegexpTimeout when unset
// or larger.
func regexpTimeout(opts Options) time.Duration {
	if t := opts.RegexpTimeout; t > 0 && t < DefaultRegexpTimeout {
		return t
	}
	return DefaultRegexpTimeout
}

// timeRegexps installs the timing for s when s can make a regexp (see
// above). It runs before s's code; later scripts (a nested workflow) may add
// exec.
func (r *Runtime) timeRegexps(s *Script) {
	if !s.regexps {
		return
	}
	var proto *goja.Object
	prototype := func() *goja.Object {
		if proto == nil {
			// From a literal: an earlier script may have replaced the global RegExp.
			v, err := r.VM.RunProgram(regexpProgram())
			if err != nil {
				panic(err)
			}
			proto = v.(*goja.Object).Prototype()
		}
		return proto
	}
	if !r.regexpsTimed {
		r.regexpsTimed = true
		p := prototype()
		r.timeMethod(p, "test", nil)
		for _, sym := range []*goja.Symbol{goja.SymMatch, goja.SymSearch, goja.SymSplit} {
			r.timeSymbolMethod(p, sym, r.timed)
		}
		r.timeSymbolMethod(p, goja.SymReplace, r.timedReplace)
		r.timeSymbolMethod(p, goja.SymMatchAll, r.timedMatchAll)
	}
	if s.refs["exec"] && !r.execTimed {
		r.execTimed = true
		r.timeMethod(prototype(), "exec", nil)
	}
}

var regexpProgram = sync.OnceValue(func() *goja.Program {
	return goja.MustCompile(preludeName, "/(?:)/", true)
})

// A wrapper builds the timed version of a matching method orig; label
// returns the regexp a call of it runs (nil: the call's this).
type wrapper func(orig goja.Callable, label func() goja.Value) func(goja.FunctionCall) goja.Value

func (r *Runtime) timeMethod(o *goja.Object, name string, label func() goja.Value) {
	orig, _ := goja.AssertFunction(o.Get(name))
	f := r.nativeMethod(name, int(o.Get(name).(*goja.Object).Get("length").ToInteger()), r.timed(orig, label))
	_ = o.DefineDataProperty(name, f, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

func (r *Runtime) timeSymbolMethod(o *goja.Object, sym *goja.Symbol, wrap wrapper) {
	v := o.GetSymbol(sym)
	orig, _ := goja.AssertFunction(v)
	f := r.nativeMethod("["+sym.String()+"]", int(v.(*goja.Object).Get("length").ToInteger()), wrap(orig, nil))
	_ = o.DefineDataPropertySymbol(sym, f, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// nativeMethod returns fn as a function object named like a builtin method.
func (r *Runtime) nativeMethod(name string, length int, fn func(goja.FunctionCall) goja.Value) *goja.Object {
	f := r.VM.ToValue(fn).(*goja.Object)
	_ = f.DefineDataProperty("name", r.VM.ToValue(name), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = f.DefineDataProperty("length", r.VM.ToValue(length), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	return f
}

// timed calls orig and checks how long it took.
func (r *Runtime) timed(orig goja.Callable, label func() goja.Value) func(goja.FunctionCall) goja.Value {
	return func(call goja.FunctionCall) goja.Value {
		if r.regexpErr != nil {
			return goja.Null() // the VM stops before anything reads it
		}
		start := time.Now()
		v, err := orig(call.This, call.Arguments...)
		r.checkRegexpTime(start, 0, call.This, label)
		if err != nil {
			panic(err) // a throw stays a throw; an uncatchable error stays uncatchable
		}
		return v
	}
}

// timedReplace is timed for [Symbol.replace], leaving out the time spent in
// a replacement function: a slow callback is not a slow regexp.
func (r *Runtime) timedReplace(orig goja.Callable, _ func() goja.Value) func(goja.FunctionCall) goja.Value {
	return func(call goja.FunctionCall) goja.Value {
		if r.regexpErr != nil {
			return goja.Null()
		}
		args := call.Arguments
		var inCallback time.Duration
		if fn, ok := goja.AssertFunction(call.Argument(1)); ok {
			args = append([]goja.Value(nil), args...)
			args[1] = r.VM.ToValue(func(c goja.FunctionCall) goja.Value {
				t := time.Now()
				v, err := fn(c.This, c.Arguments...)
				inCallback += time.Since(t)
				if err != nil {
					panic(err)
				}
				return v
			})
		}
		start := time.Now()
		v, err := orig(call.This, args...)
		r.checkRegexpTime(start, inCallback, call.This, nil)
		if err != nil {
			panic(err)
		}
		return v
	}
}

// timedMatchAll is [Symbol.matchAll], whose iterator matches lazily: each
// iterator gets its own timed next that names the regexp.
func (r *Runtime) timedMatchAll(orig goja.Callable, _ func() goja.Value) func(goja.FunctionCall) goja.Value {
	return func(call goja.FunctionCall) goja.Value {
		v, err := orig(call.This, call.Arguments...)
		if err != nil {
			panic(err)
		}
		it, ok := v.(*goja.Object)
		if !ok {
			return v
		}
		if r.matchAllNext == nil {
			r.matchAllNext, _ = goja.AssertFunction(it.Get("next"))
		}
		re := call.This
		next := r.nativeMethod("next", 0, r.timed(r.matchAllNext, func() goja.Value { return re }))
		_ = it.DefineDataProperty("next", next, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
		return it
	}
}

// checkRegexpTime interrupts the VM with RESOURCE_LIMIT when the call that
// started at start took the regexp timeout or longer, not counting
// excluded. this (or label's result) is the regexp, for the message.
func (r *Runtime) checkRegexpTime(start time.Time, excluded time.Duration, this goja.Value, label func() goja.Value) {
	if r.regexpOff || time.Since(start)-excluded < r.regexpTimeout || r.regexpErr != nil {
		return
	}
	if label != nil {
		this = label()
	}
	line, col := r.CallerPosition()
	r.regexpErr = wferr.At(wferr.ResourceLimit, line, col,
		"a regular expression took longer than %s to match (catastrophic backtracking in %s); simplify the pattern: avoid nested quantifiers like (a+)+",
		r.regexpTimeout, regexpLabel(this))
	r.VM.Interrupt(r.regexpErr)
}

// regexpLabel renders a regexp as /source/flags, shortened.
func regexpLabel(v goja.Value) string {
	o, ok := v.(*goja.Object)
	if !ok || o.ClassName() != "RegExp" {
		return "a regular expression"
	}
	src, flags := o.Get("source"), o.Get("flags")
	if src == nil || flags == nil {
		return "a regular expression"
	}
	s := []rune(src.String())
	if len(s) > maxRegexpLabel {
		s = append(s[:maxRegexpLabel-1], '…')
	}
	return "/" + string(s) + "/" + flags.String()
}

// SetLimitsLive turns the regexp timeout on (the default) or off: a run
// replayed from a history that recorded its limits lets the history decide
// (runtime.LimitRecorder). VM goroutine.
func (r *Runtime) SetLimitsLive(live bool) { r.regexpOff = !live }

// LimitError is the RESOURCE_LIMIT error of a regexp that ran over its
// timeout, or nil. VM goroutine.
func (r *Runtime) LimitError() *wferr.Error { return r.regexpErr }
