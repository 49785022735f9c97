package sandbox

import (
	"errors"
	"strings"
	"testing"

	"github.com/dop251/goja"

	"github.com/wfrun/wfrun/internal/wferr"
)

// runErr runs src and returns its *wferr.Error.
func runErr(t *testing.T, src string) *wferr.Error {
	t.Helper()
	out, err := run(t, src, "")
	var we *wferr.Error
	if !errors.As(err, &we) {
		t.Fatalf("%q: got %s, %v; want a *wferr.Error", src, out, err)
	}
	return we
}

func TestDeterminism_ClockAndRandomThrow(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"return Date.now()", "Date.now() is not available in a workflow: runs must replay identically; pass the time in args"},
		{"return new Date()", "new Date() without arguments is not available"},
		{"return Date()", "Date() is not available"},
		{"return Math.random()", "Math.random() is not available"},
		{"return globalThis.Date.now()", "Date.now() is not available"},
		{"try { Date.now() } catch (e) { return e instanceof TypeError ? e.message : 'other' }", ""},
	} {
		if tc.want == "" {
			out, err := run(t, tc.src, "")
			if err != nil || !strings.Contains(string(out), "replay identically") {
				t.Errorf("%q: %s %v", tc.src, out, err)
			}
			continue
		}
		e := runErr(t, tc.src)
		if e.Code != wferr.ScriptError || !strings.Contains(e.Message, "TypeError: "+tc.want) || e.Line != 1 {
			t.Errorf("%q: got %v", tc.src, e)
		}
	}
}

func TestDeterminism_DateWithValueWorks(t *testing.T) {
	out, err := run(t, `const d = new Date(0)
return [d.toISOString(), d instanceof Date, Date.UTC(2020, 0, 1), Date.parse('2020-01-01T00:00:00Z'),
  new Date(2020, 0, 2).getDate(), new Date('2021-03-04T00:00:00Z').getUTCMonth(), Date.length,
  Object.prototype.toString.call(new Date(1)), class D extends Date {}.name, new (class extends Date {})(5).getTime()]`, "")
	want := `["1970-01-01T00:00:00.000Z",true,1577836800000,1577836800000,2,2,7,"[object Date]","D",5]`
	if err != nil || string(out) != want {
		t.Errorf("got %s, %v\nwant %s", out, err, want)
	}
}

func TestDeterminism_EvalAndFunctionConstructorsThrow(t *testing.T) {
	for _, src := range []string{
		"return eval('1')",
		"return new Function('return 1')()",
		"return Function('return 1')()",
		"return (function(){}).constructor('return 1')()",
		"return (async function(){}).constructor('return 1')()",
		"return (async () => {}).constructor('return 1')()",
		"function* g() {}\nreturn g.constructor('yield 1')",
	} {
		e := runErr(t, src)
		if e.Code != wferr.ScriptError || !strings.Contains(e.Message, "TypeError") || !strings.Contains(e.Message, "not available in a workflow") {
			t.Errorf("%q: got %v", src, e)
		}
	}
	out, err := run(t, "return [(() => 1) instanceof Function, typeof Function, Function.prototype.call.name]", "")
	if err != nil || string(out) != `[true,"function","call"]` {
		t.Errorf("Function identity: %s %v", out, err)
	}
}

func TestGlobals_AbsentOnPurpose(t *testing.T) {
	out, err := run(t, "return [typeof require, typeof process, typeof setTimeout, typeof console, typeof module, typeof fetch]", "")
	if err != nil || string(out) != `["undefined","undefined","undefined","undefined","undefined","undefined"]` {
		t.Errorf("got %s, %v", out, err)
	}
	e := runErr(t, "setTimeout(() => 1, 10)")
	if !strings.Contains(e.Message, "timers are not available in a workflow") {
		t.Errorf("got %v", e)
	}
	e = runErr(t, "const fs = require('fs')")
	if !strings.Contains(e.Message, "modules are not available") {
		t.Errorf("got %v", e)
	}
}

func TestPolyfills_Work(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"return Object.groupBy([1, 2, 3], x => x % 2 ? 'odd' : 'even')", `{"odd":[1,3],"even":[2]}`},
		{"return [...Map.groupBy([1, 2, 3], x => x % 2)]", `[[1,[1,3]],[0,[2]]]`},
		{"const o = {a: [1, {b: new Date(0)}], m: new Map([[1, 2]]), s: new Set([1]), r: /x/g}; o.self = o\n" +
			"const c = structuredClone(o)\nreturn [c.self === c, c.a[1].b instanceof Date, c !== o, c.m.get(1), c.s.has(1), c.r.flags, c.a !== o.a]",
			`[true,true,true,2,true,"g",true]`},
		{"const {promise, resolve} = Promise.withResolvers(); resolve(5); return await promise", `5`},
		{"return await Array.fromAsync([1, Promise.resolve(2)], x => x * 2)", `[2,4]`},
		{"return ['a\\ud800'.isWellFormed(), 'ab'.isWellFormed(), 'a\\ud800b'.toWellFormed() === 'a\\ufffdb']", `[false,true,true]`},
		{"return [new URL('https://a.b/c?d=1').searchParams.get('d'), new URLSearchParams('a=1&b=2').toString()]", `["1","a=1&b=2"]`},
		{"return [typeof globalThis.structuredClone, typeof globalThis.Object.groupBy, typeof globalThis.URL]", `["function","function","function"]`},
	} {
		out, err := run(t, tc.src, "")
		if err != nil || string(out) != tc.want {
			t.Errorf("%q:\n got %s, %v\nwant %s", tc.src, out, err, tc.want)
		}
	}
	e := runErr(t, "return structuredClone({f() {}})")
	if !strings.Contains(e.Message, "DataCloneError") {
		t.Errorf("structuredClone of a function: %v", e)
	}
}

func TestPolyfills_AreNotEnumerable(t *testing.T) {
	out, err := run(t, `const k = []
for (const x in Object) k.push(x)
for (const x in Map) k.push(x)
for (const x in Promise) k.push(x)
for (const x in Array) k.push(x)
for (const x in String.prototype) k.push(x)
for (const x in globalThis) k.push(x)
return k`, "")
	if err != nil || string(out) != "[]" {
		t.Errorf("got %s, %v", out, err)
	}
}

func TestUnicodePropertyEscapes_MatchCorrectly(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"return 'a1 b-é'.replace(/[^\\p{L}\\p{N}]+/gu, '_')", `"a1_b_é"`},
		{"return /\\p{Lu}/u.test('É')", `true`},
		{"return [/^\\p{L}$/u.test('𝒜'), /^\\P{L}$/u.test('𝒜'), /^[\\P{L}]$/u.test('1'), /^[^\\p{L}]$/u.test('𝒜')]", `[true,false,true,false]`},
		{"return /^\\p{L}+(?=1)/u.exec('é𝒜1')[0]", `"é𝒜"`}, // lookahead: goja's regexp2 path
		{"return [/\\p{Script=Greek}/u.test('α'), /\\p{sc=Latin}/u.test('α'), /^\\p{Nd}+$/u.test('٣4')]", `[true,false,true]`},
		{"return 'Hello, Wörld!'.match(/\\p{P}/gu)", `[",","!"]`},
		{"return /\\p{L}/.test('p{L}')", `true`}, // no u flag: \p is the letter p, as in JavaScript
		{"return 'a1 b-é'.replace(new RegExp('[^\\\\p{L}\\\\p{N}]+', 'gu'), '_')", `"a1_b_é"`},
		{"return [new RegExp('x') instanceof RegExp, /x/ instanceof RegExp, RegExp('a', 'g').flags, 'aXbxc'.split(new RegExp('x', 'i')), /x/.constructor === RegExp]",
			`[true,true,"g",["a","b","c"],true]`},
	} {
		out, err := run(t, tc.src, "")
		if err != nil || string(out) != tc.want {
			t.Errorf("%q:\n got %s, %v\nwant %s", tc.src, out, err, tc.want)
		}
	}
	e := runErr(t, "return new RegExp('\\\\p{Foo}', 'u')")
	if !strings.Contains(e.Message, "SyntaxError: Invalid regular expression: `\\p{Foo}` is not supported") {
		t.Errorf("got %v", e)
	}
}

func TestExportJSON_FollowsJSONStringify(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"return undefined", `null`},
		{"return", `null`},
		{"return {a: undefined, f() {}, d: new Date(0), t: {toJSON() { return 'T' }}}", `{"d":"1970-01-01T00:00:00.000Z","t":"T"}`},
		{"JSON.stringify = () => 'x'; return {a: 1}", `{"a":1}`},
		{"return 'é\\ud800'", `"é\ud800"`},
	} {
		out, err := run(t, tc.src, "")
		if err != nil || string(out) != tc.want {
			t.Errorf("%q: got %s, %v; want %s", tc.src, out, err, tc.want)
		}
	}
}

func TestExportJSON_CycleIsUnserializable(t *testing.T) {
	e := runErr(t, "const a = {}; a.a = a; return a")
	if e.Code != wferr.ResultUnserializable || !strings.Contains(e.Message, "cycle") {
		t.Errorf("got %v", e)
	}
	e = runErr(t, "return {n: 10n}")
	if e.Code != wferr.ResultUnserializable || !strings.Contains(e.Message, "BigInt") {
		t.Errorf("got %v", e)
	}
}

func TestExportJSON_SizeLimit(t *testing.T) {
	r := New(Options{})
	v, _ := r.VM.RunString("'x'.repeat(2000)")
	if _, err := r.ExportJSON(v, 1000); wferr.CodeOf(err) != wferr.ResourceLimit {
		t.Errorf("got %v", err)
	}
	if _, err := r.ExportJSON(v, 0); err != nil {
		t.Errorf("no limit: %v", err)
	}
}

func TestParseJSON_UsesOriginalParse(t *testing.T) {
	// A script can reach JSON only by naming it, or through the global
	// object; either way the host's JSON.parse and stringify stay goja's.
	for _, hijack := range []string{
		"JSON.parse = () => 'hijacked'; JSON.stringify = () => '\"hijacked\"'",
		"globalThis.JSON.parse = () => 'hijacked'; globalThis.JSON.stringify = () => '\"hijacked\"'",
		"const j = globalThis['JS' + 'ON']; j.parse = () => 'hijacked'; j.stringify = () => '\"hijacked\"'",
	} {
		t.Run(hijack, func(t *testing.T) {
			r := New(Options{})
			if out, err := loadRun(t, r, hijack+"\nreturn {b: 1}"); err != nil || out != `{"b":1}` {
				t.Fatalf("the script's own result: %s, %v", out, err)
			}
			v, err := r.ParseJSON([]byte(`{"a":[1,2]}`))
			if err != nil {
				t.Fatal(err)
			}
			out, _ := r.ExportJSON(v, 0)
			if string(out) != `{"a":[1,2]}` {
				t.Errorf("got %s", out)
			}
			if _, err := r.ParseJSON([]byte(`{`)); wferr.CodeOf(err) != wferr.InvalidRequest {
				t.Errorf("invalid JSON: %v", err)
			}
		})
	}
}

func TestError_LineOneColumnIsUsers(t *testing.T) {
	for _, tc := range []struct {
		src       string
		line, col int
	}{
		{"  throw new Error('boom')", 1, 9},
		{"const x = 1\n  null.foo", 2, 8},
		{"const x = 1\nconst y = 2\n\nthrow new TypeError('t')", 4, 7},
	} {
		e := runErr(t, tc.src)
		if e.Code != wferr.ScriptError || e.Line != tc.line || e.Column != tc.col {
			t.Errorf("%q: got %v, want %d:%d", tc.src, e, tc.line, tc.col)
		}
	}
}

func TestError_NonErrorThrowHasMessage(t *testing.T) {
	e := runErr(t, "throw {code: 1}")
	if e.Code != wferr.ScriptError || !strings.Contains(e.Message, `uncaught throw: {"code":1}`) {
		t.Errorf("got %v", e)
	}
}

func TestError_StackOverflowIsResourceLimit(t *testing.T) {
	e := runErr(t, "function f() { return f() }\nreturn f()")
	if e.Code != wferr.ResourceLimit || !strings.Contains(e.Message, "maximum call stack size exceeded") || e.Line != 1 {
		t.Errorf("got %v", e)
	}
}

func TestError_InterruptWithWferrIsReturnedUnchanged(t *testing.T) {
	s, err := Parse("script.js", "for (;;) {}")
	if err != nil {
		t.Fatal(err)
	}
	r := New(Options{})
	f, err := r.Load(s)
	if err != nil {
		t.Fatal(err)
	}
	want := wferr.New(wferr.Timeout, "the run's deadline passed")
	r.VM.Interrupt(want)
	_, err = f(goja.Undefined(), goja.Undefined(), goja.Undefined())
	if got := r.Error(err); got != want {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestError_HostThrownWferrIsReturnedUnchanged(t *testing.T) {
	s, err := Parse("script.js", "host()")
	if err != nil {
		t.Fatal(err)
	}
	r := New(Options{})
	want := wferr.New(wferr.InvalidArgument, "bad")
	_ = r.VM.Set("host", func(goja.FunctionCall) goja.Value { panic(r.VM.NewGoError(want)) })
	f, _ := r.Load(s)
	v, err := f(goja.Undefined(), goja.Undefined(), goja.Undefined())
	if err != nil {
		t.Fatal(err)
	}
	p := v.Export().(*goja.Promise)
	if got := r.RejectionError(p.Result()); got != want {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestSharedScripts_RunAcrossRuntimes(t *testing.T) {
	s, err := Parse("script.js", "return args.n * 2")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 4)
	for i := 0; i < 4; i++ {
		go func() {
			r := New(Options{})
			f, _ := r.Load(s)
			a, _ := r.ParseJSON([]byte(`{"n":21}`))
			v, _ := f(goja.Undefined(), a, goja.Undefined())
			out, _ := r.ExportJSON(v.Export().(*goja.Promise).Result(), 0)
			done <- string(out)
		}()
	}
	for i := 0; i < 4; i++ {
		if got := <-done; got != "42" {
			t.Errorf("got %s", got)
		}
	}
}
