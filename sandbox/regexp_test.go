package sandbox

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dop251/goja"

	"github.com/wfrun/wfrun/internal/testkit/loadbound"
	"github.com/wfrun/wfrun/internal/wferr"
)

// catastrophic backtracks for ever in regexp2: the lookahead keeps goja
// from using RE2, and (a+)+ against a's followed by a b tries every split.
const catastrophic = "(?=a)(a+)+$"

func TestRegexpTimeout_CatastrophicMatchEndsTheRunWithResourceLimit(t *testing.T) {
	input := "const s = 'a'.repeat(40) + 'b'\n"
	cases := []struct{ name, src, pattern string }{
		{"test, in try/catch", "try { return /^" + catastrophic + "/.test(s) } catch (e) { return 'caught' }", "/^" + catastrophic + "/"},
		{"exec", "const re = /" + catastrophic + "/g;\nre.lastIndex = 0\nreturn re.exec(s)", "/" + catastrophic + "/g"},
		{"String.match with a string, after await", "await null\nreturn s.match('" + catastrophic + "')", "/" + catastrophic + "/"},
		{"matchAll", "return [...s.matchAll(/" + catastrophic + "/g)]", "/" + catastrophic + "/g"},
		{"replace with a function", "return s.replace(/" + catastrophic + "/, m => m.length)", "/" + catastrophic + "/"},
		{"replaceAll", "return s.replaceAll(new RegExp('" + catastrophic + "', 'g'), '')", "/" + catastrophic + "/g"},
		{"search", "try { return s.search(/" + catastrophic + "/) } finally { return 'finally' }", "/" + catastrophic + "/"},
		{"split", "return s.split(/" + catastrophic + "/)", "/" + catastrophic + "/"},
	}
	// Each case takes regexp2MatchTimeout; run them side by side rather than
	// under t.Parallel, which runs only GOMAXPROCS at a time.
	type result struct {
		err  error
		took loadbound.Taken
	}
	results := make([]result, len(cases))
	var wg sync.WaitGroup
	for i, tc := range cases {
		timer := loadbound.Start(t)
		wg.Go(func() {
			_, err := run(t, input+tc.src, "")
			results[i] = result{err, timer.Stop()}
		})
	}
	wg.Wait()
	for i, tc := range cases {
		res := results[i]
		var e *wferr.Error
		if !errors.As(res.err, &e) || e.Code != wferr.ResourceLimit {
			t.Errorf("%s: got %v, want RESOURCE_LIMIT", tc.name, res.err)
			continue
		}
		want := "a regular expression took longer than 1s to match (catastrophic backtracking in " + tc.pattern +
			"); simplify the pattern: avoid nested quantifiers like (a+)+"
		if e.Message != want || e.Line < 2 {
			t.Errorf("%s: got %q at line %d\nwant %q", tc.name, e.Message, e.Line, want)
		}
		if res.took.Over(5 * time.Second) {
			t.Errorf("%s: took %v", tc.name, res.took)
		}
	}
}

func TestRegexpTimeout_OptionsSetALowerLimit(t *testing.T) {
	// About 2^22 steps: it finishes, but not within 50ms.
	_, err := runOpts(t, Options{RegexpTimeout: 50 * time.Millisecond},
		"return /^"+catastrophic+"/.test('a'.repeat(22) + 'b')", "")
	if e := (*wferr.Error)(nil); !errors.As(err, &e) || e.Code != wferr.ResourceLimit ||
		!strings.HasPrefix(e.Message, "a regular expression took longer than 50ms to match") {
		t.Errorf("got %v", err)
	}
	for _, tc := range []struct{ set, want time.Duration }{
		{0, time.Second},
		{-1, time.Second},
		{200 * time.Millisecond, 200 * time.Millisecond},
		{time.Minute, time.Second}, // regexp2 gives up sooner: a larger limit would let wrong answers through
	} {
		if got := regexpTimeout(Options{RegexpTimeout: tc.set}); got != tc.want {
			t.Errorf("RegexpTimeout %v: got %v, want %v", tc.set, got, tc.want)
		}
	}
}

func TestRegexp_OrdinaryPatternsGiveRightAnswers(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"return [/(?<=\\$)\\d+/.exec('cost: $42')[0], /(?<!\\$)\\b\\d+/.exec('$1 and 2')[0]]", `["42","2"]`},
		{"return [/(\\w)\\1/.test('hello'), /(\\w)\\1/.test('helo'), 'aa bb cd'.match(/(\\w)\\1/g)]", `[true,false,["aa","bb"]]`},
		{"return 'x=1, y=22'.replace(/(?<k>\\w)=(?<v>\\d+)/g, '$<v>:$1')", `"1:x, 22:y"`},
		{"return [...'a1b22c333'.matchAll(/(?<=[a-z])\\d+/g)].map(m => [m[0], m.index])", `[["1",1],["22",3],["333",6]]`},
		{"const re = /\\d+/g, out = []\nlet m\nwhile ((m = re.exec('1 22 333')) !== null) out.push([m[0], re.lastIndex])\nreturn out",
			`[["1",1],["22",4],["333",8]]`},
		{"const re = /a/y;\nre.lastIndex = 1\nreturn [re.test('ba'), re.lastIndex, re.test('ba')]", `[true,2,false]`},
		{"return ['a, b,c'.split(/\\s*(,)\\s*/), 'abc'.split(''), 'a,b'.split(','), 'a1b2'.split(/\\d/, 1)]",
			`[["a",",","b",",","c"],["a","b","c"],["a","b"],["a"]]`},
		{"return ['foo bar'.search(/(?<=o )b/), 'abc'.search('c'), 'Abc'.match('b')[0], 'aXbX'.replaceAll(/x/gi, '-')]", `[4,2,"b","a-b-"]`},
		{"class R extends RegExp { exec(s) { const m = super.exec(s); if (m) m[0] = m[0].toUpperCase(); return m } }\n" +
			"return ['a-b'.replace(new R('[a-z]', 'g'), x => x + x), new R('b').test('abc')]", `["AA-BB",true]`},
		{"return [/(a+)+b/.test('a'.repeat(30) + 'b'), /^(?=a)(a+)+$/.test('a'.repeat(30))]", `[true,true]`},
	} {
		out, err := run(t, tc.src, "")
		if err != nil || string(out) != tc.want {
			t.Errorf("%q:\n got %s, %v\nwant %s", tc.src, out, err, tc.want)
		}
	}
}

func TestRegexp_ReplaceWithAFunctionWorks(t *testing.T) {
	out, err := run(t, "try { 'abc'.replace(/b/, () => { throw new Error('x') }) } catch (e) { return e.message }", "")
	if err != nil || string(out) != `"x"` {
		t.Errorf("a throwing callback: got %s, %v", out, err)
	}
	out, err = run(t, `const calls = []
const r = 'a1-b22'.replace(/(?<l>[a-z])(\d+)/g, function (m, l, d, offset, s, groups) {
  calls.push([m, l, d, offset, s, groups.l])
  return d + l
})
return [r, calls]`, "")
	want := `["1a-22b",[["a1","a","1",0,"a1-b22","a"],["b22","b","22",3,"a1-b22","b"]]]`
	if err != nil || string(out) != want {
		t.Errorf("got %s, %v\nwant %s", out, err, want)
	}
	// Time spent in the callback is not the regexp's.
	out, err = runOpts(t, Options{RegexpTimeout: 20 * time.Millisecond}, `return 'aaaa'.replace(/a/g, () => {
  let x = 0
  for (let i = 0; i < 200000; i++) x += i
  return 'b'
})`, "")
	if err != nil || string(out) != `"bbbb"` {
		t.Errorf("slow callback: got %s, %v", out, err)
	}
}

func TestRegexp_TimingIsInstalledOnlyForScriptsThatCanMakeRegexps(t *testing.T) {
	for _, tc := range []struct {
		src        string
		timed, exe bool
	}{
		{"return 'a,b'.split(',').join(';').replace(';', ',')", false, false},
		{"return 'x'.replace(/a/, 'b')", true, false},
		{"return 'x'.match('a')", true, false},
		{"return new RegExp('a').source", true, false},
		{"return /a/.exec('a')[0]", true, true},
		{"const exec = 1; return exec", false, false},
	} {
		s, err := Parse("script.js", tc.src)
		if err != nil {
			t.Fatal(err)
		}
		r := New(Options{})
		if _, err := r.Load(s); err != nil {
			t.Fatal(err)
		}
		if r.regexpsTimed != tc.timed || r.execTimed != tc.exe {
			t.Errorf("%q: timed %v, exec %v; want %v, %v", tc.src, r.regexpsTimed, r.execTimed, tc.timed, tc.exe)
		}
	}
}

func TestRegexp_TimedMethodsLookLikeBuiltins(t *testing.T) {
	out, err := run(t, `const p = RegExp.prototype, ms = [p.exec, p.test, p[Symbol.match], p[Symbol.matchAll], p[Symbol.replace], p[Symbol.search], p[Symbol.split]]
const it = 'a'.matchAll(/a/g)
let threw = false
try { new p.test() } catch (e) { threw = e instanceof TypeError }
return [ms.map(f => f.name + '/' + f.length), Object.keys(p), Object.keys(it), threw, /a/.exec('a').index]`, "")
	want := `[["exec/1","test/1","[Symbol.match]/1","[Symbol.matchAll]/1","[Symbol.replace]/2","[Symbol.search]/1","[Symbol.split]/2"],[],[],true,0]`
	if err != nil || string(out) != want {
		t.Errorf("got %s, %v\nwant %s", out, err, want)
	}
}

func TestRegexp_ANestedScriptIsTimedAfterTheGlobalRegExpIsReplaced(t *testing.T) {
	first, err := Parse("first.js", "RegExp = undefined; return 'x'.split(',')")
	if err != nil {
		t.Fatal(err)
	}
	second, err := Parse("second.js", "return /b/.exec('abc').index")
	if err != nil {
		t.Fatal(err)
	}
	r := New(Options{})
	f, err := r.Load(first)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f(goja.Undefined()); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Load(second); err != nil || !r.regexpsTimed || !r.execTimed {
		t.Errorf("got %v, timed %v, exec %v", err, r.regexpsTimed, r.execTimed)
	}
}
