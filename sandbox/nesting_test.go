package sandbox

import (
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/wfrun/wfrun/internal/testkit/loadbound"
	"github.com/wfrun/wfrun/internal/wferr"
)

// deep is how deeply the tests nest values: far past MaxNesting, and deep
// enough that an unbounded native recursion overflows the stack that
// smallStack leaves (it needs only 160 bytes of Go stack per level), yet
// quick to build.
const deep = "100000"

// smallStack caps the Go stack at 16 MiB while the test runs, so that a
// builtin that recursed natively without bound would crash the test binary
// at once (at 100k levels) instead of after a minute (at Go's default 1 GB,
// millions of levels). The bounded paths need well under 16 MiB.
func smallStack(t *testing.T) {
	t.Helper()
	old := debug.SetMaxStack(16 << 20)
	t.Cleanup(func() { debug.SetMaxStack(old) })
}

// wantRun runs each script and compares its JSON result.
func wantRun(t *testing.T, cases []struct{ src, want string }) {
	t.Helper()
	for _, tc := range cases {
		timer := loadbound.Start(t)
		out, err := run(t, tc.src, "")
		if err != nil || string(out) != tc.want {
			t.Errorf("%s\n got %s, %v\nwant %s", tc.src, out, err, tc.want)
		}
		if took := timer.Stop(); took.Over(5 * time.Second) {
			t.Errorf("%s: took %v", tc.src, took)
		}
	}
}

// caught wraps expr in a script that builds the nested value `a` (an array
// nested deep levels) and `o` (an object nested deep levels), evaluates
// expr and returns the class and message of what it threw.
func caught(expr string) string {
	return `let a = [1], o = {}
for (let i = 0; i < ` + deep + `; i++) { a = [a]; o = {o} }
try { ` + expr + `; return 'no throw' } catch (e) { return e.name + ': ' + e.message }`
}

func TestNesting_DeepArrayToStringIsRangeError(t *testing.T) {
	smallStack(t)
	const want = `"RangeError: Array.prototype.join: the array nests deeper than 1000 levels; flatten it before turning it into a string"`
	wantRun(t, []struct{ src, want string }{
		{caught("String(a)"), want},
		{caught("a.toString()"), want},
		{caught("a.join('-')"), want},
		{caught("`${a}`"), want},
		{caught("a + ''"), want},
		{caught("a == '1'"), want},
		{caught("new Error(a)"), want},
		{caught("({})[a]"), want},
		{caught("a.toLocaleString()"), `"RangeError: Array.prototype.toLocaleString: the array nests deeper than 1000 levels; flatten it before turning it into a string"`},
	})
}

func TestNesting_ArraysStillTurnIntoStrings(t *testing.T) {
	wantRun(t, []struct{ src, want string }{
		{"return [String([1, [2, [3]]]), [[1, 2], [3]].join(';'), `${[1, 2]}`, [1, null, undefined, 2].join(), [].join(), [1.5, [2]].toLocaleString()]",
			`["1,2,3","1,2;3","1,2","1,,,2","","1.5,2"]`},
		{"let a = [7]; for (let i = 1; i < 1000; i++) a = [a]; return String(a)", `"7"`}, // MaxNesting levels is allowed
		{"const a = [1]; a.push(a, 2); return String(a)", `"1,,2"`},                      // a cycle is cut, as before
		{"return [Array.prototype.join.name, Array.prototype.join.length, Array.prototype.toLocaleString.name, Object.keys(Array.prototype).length]",
			`["join",1,"toLocaleString",0]`},
		{"try { String([{toString() { throw new Error('inner') }}]) } catch (e) { return e.message }", `"inner"`},
	})
}

func TestNesting_JSONStringifyDeepValueIsRangeError(t *testing.T) {
	smallStack(t)
	const want = `"RangeError: JSON.stringify: the value nests deeper than 1000 levels; flatten it, or serialise the deep part separately"`
	wantRun(t, []struct{ src, want string }{
		{caught("JSON.stringify(a)"), want},
		{caught("JSON.stringify(o)"), want},
		{caught("JSON.stringify(o, (k, v) => v)"), want},
		{caught("JSON.stringify(o, ['o'])"), want},
		{caught("JSON.stringify(o, null, 2)"), want},
		{caught("JSON.stringify({toJSON() { return a }})"), want},
		{caught("JSON.stringify(1, (k, v) => k === '' ? o : v)"), want},
		{`let o = 1
for (let i = 0; i < ` + deep + `; i++) { const p = o; o = {toJSON() { return [p] }} }
try { JSON.stringify(o) } catch (e) { return e.name }`, `"RangeError"`},
	})
}

func TestNesting_JSONStringifyKeepsItsSemantics(t *testing.T) {
	wantRun(t, []struct{ src, want string }{
		{"return JSON.stringify({a: [1, {b: 2}], u: undefined, f() {}, d: new Date(0), n: null})", `"{\"a\":[1,{\"b\":2}],\"d\":\"1970-01-01T00:00:00.000Z\",\"n\":null}"`},
		{"return JSON.stringify({a: 1, b: [2]}, function (k, v) { return typeof v === 'number' ? v * 10 : v })", `"{\"a\":10,\"b\":[20]}"`},
		{"return JSON.stringify({x: 1, y: 2}, function (k, v) { return k === 'x' ? this.y : v })", `"{\"x\":2,\"y\":2}"`},
		{"return JSON.stringify({b: 1, a: 2, c: {a: 3, z: 4}, l: [{a: 5, q: 6}]}, ['a', 'b', 'c', 'l', 'a', 1])", `"{\"a\":2,\"b\":1,\"c\":{\"a\":3},\"l\":[{\"a\":5}]}"`},
		{"return JSON.stringify({a: [1], b: {}}, null, 2)", `"{\n  \"a\": [\n    1\n  ],\n  \"b\": {}\n}"`},
		{"return [JSON.stringify(undefined), JSON.stringify('x'), JSON.stringify(new String('s')), JSON.stringify([new Number(1), Object(false)]), JSON.stringify({k: 1}, null, '--')]",
			`[null,"\"x\"","\"s\"","[1,false]","{\n--\"k\": 1\n}"]`},
		{"const x = {}; return JSON.stringify([x, x, {x}])", `"[{},{},{\"x\":{}}]"`}, // shared, not cyclic
		{"const o = {}; o.o = o; try { JSON.stringify(o) } catch (e) { return e.name + ': ' + e.message }", `"TypeError: Converting circular structure to JSON"`},
		{"const o = {}; o.o = o; try { JSON.stringify(o, ['o']) } catch (e) { return e.name + ': ' + e.message }", `"TypeError: Converting circular structure to JSON"`},
		{"return JSON.stringify({toJSON() { return JSON.stringify([1]) }})", `"\"[1]\""`}, // nested calls
		{"let o = {v: 1}; for (let i = 1; i < 1000; i++) o = {o}; return JSON.stringify(o).length", `6001`},
		{"return [JSON.stringify.name, JSON.stringify.length, JSON.parse.name, JSON.parse.length]", `["stringify",3,"parse",2]`},
	})
}

func TestExportJSON_DeepValueIsResourceLimit(t *testing.T) {
	smallStack(t)
	for _, src := range []string{
		"let a = []; for (let i = 0; i < " + deep + "; i++) a = [a]; return a",
		"let o = {}; for (let i = 0; i < " + deep + "; i++) o = {o}; return o",
		"let o = 1; for (let i = 0; i < " + deep + "; i++) { const p = o; o = {toJSON() { return {p} }} }; return o",
	} {
		timer := loadbound.Start(t)
		e := runErr(t, src)
		if e.Code != wferr.ResourceLimit || !strings.Contains(e.Message, "the value nests deeper than 1000 levels") {
			t.Errorf("%s: got %v", src, e)
		}
		if took := timer.Stop(); took.Over(5 * time.Second) {
			t.Errorf("%s: took %v", src, took)
		}
	}
	out, err := run(t, "let a = [1]; for (let i = 1; i < 1000; i++) a = [a]; return a", "")
	if err != nil || len(out) != 2001 {
		t.Errorf("1000 levels: %d bytes, %v", len(out), err)
	}
}

func TestError_DeepThrownValueIsDescribed(t *testing.T) {
	smallStack(t)
	for _, src := range []string{
		"let a = [1]; for (let i = 0; i < " + deep + "; i++) a = [a]; throw a",
		"let o = {}; for (let i = 0; i < " + deep + "; i++) o = {o}; throw o",
		"throw {toJSON() { throw 1 }, toString() { throw 2 }}",
	} {
		e := runErr(t, src)
		if e.Code != wferr.ScriptError || !strings.Contains(e.Message, "uncaught throw") {
			t.Errorf("%.60s: got %v", src, e)
		}
	}
}

func TestNesting_JSONParseDeepTextIsSyntaxError(t *testing.T) {
	smallStack(t)
	wantRun(t, []struct{ src, want string }{
		{"try { JSON.parse('['.repeat(" + deep + ") + ']'.repeat(" + deep + ")) } catch (e) { return e.name + ': ' + e.message }",
			`"SyntaxError: JSON.parse: the text nests deeper than 1000 levels"`},
		{"try { JSON.parse('{\"a\":'.repeat(" + deep + ") + '1' + '}'.repeat(" + deep + ")) } catch (e) { return e.name }", `"SyntaxError"`},
		{"try { JSON.parse('['.repeat(" + deep + "), (k, v) => v) } catch (e) { return e.name }", `"SyntaxError"`},
		{"return JSON.parse('['.repeat(1000) + ']'.repeat(1000)).length", `1`},
		{"return JSON.parse('[\"' + '['.repeat(5000) + '\\\\\"{\"]')[0].length", `5002`}, // brackets in strings do not count
	})
}

func TestNesting_JSONParseRevivesLikeBefore(t *testing.T) {
	smallStack(t)
	wantRun(t, []struct{ src, want string }{
		{"return JSON.parse('{\"a\":[1,2],\"b\":{\"c\":3},\"d\":4}', (k, v) => typeof v === 'number' ? v + 1 : k === 'd' ? undefined : v)", `{"a":[2,3],"b":{"c":4},"d":5}`},
		{"return JSON.parse('{\"a\":1,\"b\":2}', (k, v) => k === 'b' ? undefined : v)", `{"a":1}`},
		{"const seen = []; JSON.parse('{\"a\":[1],\"b\":2}', function (k, v) { seen.push(k + '@' + (this === undefined ? '?' : Object.keys(this).join('|'))); return v }); return seen",
			`["0@0","a@a|b","b@a|b","@"]`},
		{"return JSON.parse('\"x\"', (k, v) => v + k.length)", `"x0"`},
		{`let d = [1]; for (let i = 0; i < ` + deep + `; i++) d = [d]
try { JSON.parse('[1, 2]', function (k, v) { if (k === '0') this[1] = d; return v }) } catch (e) { return e.name + ': ' + e.message }`,
			`"RangeError: JSON.parse: the reviver made the value nest deeper than 1000 levels"`},
	})
}

func TestParseJSON_DeepTextIsInvalidRequest(t *testing.T) {
	smallStack(t)
	r := New(Options{})
	_, err := r.ParseJSON([]byte(strings.Repeat(`{"a":[`, 100000)))
	if wferr.CodeOf(err) != wferr.InvalidRequest || !strings.Contains(err.Error(), "nests deeper than 1000 levels") {
		t.Errorf("got %v", err)
	}
	v, err := r.ParseJSON([]byte(strings.Repeat("[", 1000) + strings.Repeat("]", 1000)))
	if err != nil || v == nil {
		t.Errorf("1000 levels: %v", err)
	}
}

func TestNesting_FlatFlattensAnyDepth(t *testing.T) {
	smallStack(t)
	wantRun(t, []struct{ src, want string }{
		{"let a = [1]; for (let i = 0; i < " + deep + "; i++) a = [a, i]; return a.flat(Infinity).length", `100001`},
		{"let a = [1]; for (let i = 0; i < " + deep + "; i++) a = [a]; return a.flat(" + deep + ")", `[1]`},
		{"let a = [1]; for (let i = 0; i < 3000; i++) a = [a]; let b = a.flat(2500), n = 0; while (Array.isArray(b)) { b = b[0]; n++ } return n", `501`},
		{"return [[1, [2, [3, [4]]]].flat(), [1, [2, [3, [4]]]].flat(Infinity), [1, [2, [3]]].flat(0), [1, [2, [3]]].flat('2'), [1, , [2, , 3]].flat(), [[1]].flat(NaN), [[1]].flat(-1)]",
			`[[1,2,[3,[4]]],[1,2,3,4],[1,[2,[3]]],[1,2,3],[1,2,3],[[1]],[[1]]]`},
		{"return [[1, [2]].flatMap(x => x), [1, 2].flatMap(x => [[x]]), Array.prototype.flat.length, Array.prototype.flat.name]", `[[1,2],[[1],[2]],0,"flat"]`},
		{"class A extends Array {}; const f = A.from([[1], [[]], [2, [3]]]).flat(Infinity); return [f instanceof A, f.length, [...f]]", `[true,3,[1,2,3]]`},
		{"return [[1, , [2, , [3, [[]]]]].flat(Infinity), Array.prototype.flat.call({length: 3, 0: [1, [2]], 2: 3}, Infinity), [[], [[]]].flat(Infinity), [[1]].flat(1e9)]", `[[1,2,3],[1,2,3],[],[1]]`},
	})
}

func TestNesting_BindChainIsRangeError(t *testing.T) {
	smallStack(t)
	const want = `"RangeError: Function.prototype.bind: bound functions nest deeper than 1000 levels; call the functions in a loop instead"`
	wantRun(t, []struct{ src, want string }{
		{"let f = function () { return 1 }; try { for (let i = 0; i < " + deep + "; i++) { f = f.bind(null); delete f.name } } catch (e) { return e.name + ': ' + e.message }", want},
		{"let f = function () { return 1 }; try { for (let i = 0; i < " + deep + "; i++) f = Function.prototype.call.bind(f) } catch (e) { return e.name + ': ' + e.message }", want},
		{"let f = function () { return 1 }; try { for (let i = 0; i < " + deep + "; i++) f = Reflect.apply.bind(null, f, null, []) } catch (e) { return e.name + ': ' + e.message }", want},
		{"let f = function () { return 1 }; for (let i = 0; i < 999; i++) f = f.bind(null); return f()", `1`},
		// bind reached without writing it: the guard is installed for these too.
		{"const k = 'bi' + 'nd'; let f = function () { return 1 }; try { for (let i = 0; i < " + deep + "; i++) f = f[k](null) } catch (e) { return e.name + ': ' + e.message }", want},
		{"let f = function () { return 1 }; try { for (let i = 0; i < " + deep + "; i++) f = f['bind'](null) } catch (e) { return e.name + ': ' + e.message }", want},
		{"const b = Object.values(Object.getOwnPropertyDescriptors(Function.prototype)).find(d => d.value && d.value.name === 'bi' + 'nd').value\n" +
			"let f = function () { return 1 }; try { for (let i = 0; i < " + deep + "; i++) f = b.call(f, null) } catch (e) { return e.name + ': ' + e.message }", want},
		{"const F = globalThis.Function.prototype\nlet f = function () { return 1 }; try { for (let i = 0; i < " + deep + "; i++) f = Object.values(Object.getOwnPropertyDescriptors(F)).find(d => d.value && d.value.length === 1 && d.value.name.startsWith('bi')).value.call(f, null) } catch (e) { return e.name + ': ' + e.message }", want},
	})
}

func TestNesting_BindGuardHoldsInASecondScriptAfterTheFirstReplacedFunction(t *testing.T) {
	smallStack(t)
	r := New(Options{})
	if out, err := loadRun(t, r, "Function = { prototype: {} }\nreturn 1"); err != nil || out != "1" {
		t.Fatalf("first script: %s, %v", out, err)
	}
	out, err := loadRun(t, r, "let f = function () { return 1 }; try { for (let i = 0; i < "+deep+"; i++) f = f.bind(null) } catch (e) { return e.name }")
	if err != nil || out != `"RangeError"` {
		t.Fatalf("second script: %s, %v", out, err)
	}
}

func TestNesting_BindKeepsItsSemantics(t *testing.T) {
	wantRun(t, []struct{ src, want string }{
		{`function F(a, b, c) { this.s = [this instanceof F, a, b, c].join() }
const B = F.bind(null, 1), BB = B.bind({}, 2)
const add = function (x, y) { return this.k + x + y }.bind({k: 1}, 2)
return [B.name, B.length, BB.name, BB.length, new BB(3).s, new B(5, 6) instanceof F, new F() instanceof B, add(3), typeof B.prototype, Function.prototype.bind.name, Function.prototype.bind.length]`,
			`["bound F",2,"bound bound F",1,"true,1,2,3",true,true,6,"undefined","bind",1]`},
		{"try { Function.prototype.bind.call(1) } catch (e) { return e.name }", `"TypeError"`},
	})
}

func TestGlobals_ProxyIsAbsent(t *testing.T) {
	out, err := run(t, "return [typeof Proxy, 'Proxy' in globalThis, typeof Reflect.get]", "")
	if err != nil || string(out) != `["undefined",false,"function"]` {
		t.Errorf("got %s, %v", out, err)
	}
	e := runErr(t, "const p = new Proxy({}, {})")
	if e.Code != wferr.ScriptError || !strings.Contains(e.Message, "ReferenceError: Proxy is not defined: Proxy is not available in a workflow") {
		t.Errorf("got %v", e)
	}
}
