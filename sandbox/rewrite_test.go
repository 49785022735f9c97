package sandbox

import (
	"strings"
	"testing"

	"github.com/dop251/goja/file"

	"github.com/wfrun/wfrun/internal/wferr"
)

// The rewritten + and templates answer what goja's own do.
func TestRewrite_ConcatAndTemplatesKeepTheirMeaning(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"const a = 'x', b = 'y'; return a + b", `"xy"`},
		{"const a = 1, b = 2; return a + b", `3`},
		{"const a = 1.5, b = 2; return a + b", `3.5`},
		{"const a = 2**53, b = 2**53; return a + b", `18014398509481984`},
		{"const a = 'n', b = 2; return [a + b, b + a]", `["n2","2n"]`},
		{"const a = true, b = null; return [a + b, a + a, b + b]", `[1,2,0]`},
		{"const a = undefined, b = 1; return Number.isNaN(a + b)", `true`},
		{"const a = [1, 2], b = {}; return a + b", `"1,2[object Object]"`},
		{"const a = {valueOf() { return 4 }}, b = {toString() { return 'z' }, valueOf: undefined}; return [a + a, b + a]", `[8,"z4"]`},
		{"const a = {[Symbol.toPrimitive](h) { return h }}; return a + a", `"defaultdefault"`},
		{"const d = new Date(0), e = ''; return (d + e).startsWith('Thu Jan 01 1970')", `true`},
		{"const a = 10n, b = 5n; return String(a + b)", `"15"`},
		{"const a = 10n, b = 5; try { a + b } catch (e) { return e.name }", `"TypeError"`},
		{"const a = Symbol('s'), b = ''; try { a + b } catch (e) { return e.name }", `"TypeError"`},
		{"const a = 'é', b = '😀'; return [a + b, (a + b).length]", `["é😀",3]`},
		{"let s = 'a', t = 'b'; s += t; s += s; return s", `"abab"`},
		{"let n = 1, m = 2; n += m; return n", `3`},
		{"const o = {s: 'a'}, k = 's', t = 'b'; o.s += t; o[k] += t; o['s'] += t; return o.s", `"abbb"`},
		{"const a = [0]; let i = 0; a[i++] += 'x'; return [a, i]", `[["0x"],1]`},
		{"const x = 'a', y = 2; return `<${x}|${y}|${[1, 2]}|${{}}>`", `"<a|2|1,2|[object Object]>"`},
		{"const x = '', y = ''; return `${x}${y}`", `""`},
		{"const x = 'é', y = 'ü'; return `${x}${y}`", `"éü"`},
		{"const s = Symbol(); try { return `${s}${s}` } catch (e) { return e.name }", `"TypeError"`},
		{"const a = [1, 2, 3]; return [Math.max(...a), [...a, ...'xy'], [...new Set(a)].length]", `[3,[1,2,3,"x","y"],3]`},
		{"const [x, ...rest] = [1, 2, 3]; let y, r; [y, ...r] = 'abc'; return [x, rest, y, r]", `[1,[2,3],"a",["b","c"]]`},
		{"function f(...xs) { return xs.length } return f(...[1, 2], ...[3])", `3`},
		{"class A { constructor(...a) { this.n = a.length } } return new A(...[1, 2]).n", `2`},
		{"const o = {a: 1}; return {...o, b: 2}", `{"a":1,"b":2}`},
	} {
		got, err := run(t, c.src, "")
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("%s = %s, want %s", c.src, got, c.want)
		}
	}
}

// Doubling a string, by + or a template, ends at the budget with
// RESOURCE_LIMIT before the string outgrows it; so does spreading a huge
// sparse array.
func TestRewrite_GrowthEndsAtTheBudget(t *testing.T) {
	for _, src := range []string{
		"let s = 'ab'; while (true) s += s",
		"let s = 'ab'; while (true) s = s + s",
		"let s = 'ab'; while (true) s = `${s}${s}`",
		"const o = {s: 'ab'}; while (true) o.s += o.s",
		"let s = 'ab'; while (true) { try { s += s } catch (e) {} }",
		"const a = []; a.length = 2 ** 32 - 1; return [...a].length",
		"const a = []; a.length = 2 ** 32 - 1; return Math.max(...a)",
		"const a = []; a.length = 2 ** 32 - 1; const [x, ...r] = a; return r.length",
		"const a = []; a[2 ** 32 - 2] = 1; return new Set([...a]).size",
	} {
		_, err := runOpts(t, Options{MaxMemory: 16 << 20}, src, "")
		if e, ok := wferr.As(err); !ok || e.Code != wferr.ResourceLimit {
			t.Errorf("%s: %v, want RESOURCE_LIMIT", src, err)
			continue
		}
		if !strings.Contains(err.Error(), "16 MiB") {
			t.Errorf("%s: %v does not name the limit", src, err)
		}
	}
}

// The helpers are out of the script's reach: it cannot name, shadow or
// replace them, and the meta literal is left as written.
func TestRewrite_HelpersCannotBeReached(t *testing.T) {
	s, err := Parse("script.js", "export const meta = {name: 'a' + 'b', d: `${1}${2}`}\nconst concat = 1; return typeof globalThis['%concat']")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.MetaLiteral().(interface{ Idx0() file.Idx }); !ok {
		t.Fatal("no meta")
	}
	got, err := run(t, "const concat = 1; return [typeof globalThis['%concat'], concat + concat]", "")
	if err != nil || string(got) != `["undefined",2]` {
		t.Fatalf("got %s, %v", got, err)
	}
}

// Only a script that joins two non-literals, spreads, destructures a rest
// or installs a conversion method takes the helpers; arithmetic with a
// literal and string building with one stay goja's own.
func TestRewrite_OnlyWhatCanGrowTakesTheHelpers(t *testing.T) {
	for src, want := range map[string]bool{
		"let n = 0; for (let i = 0; i < 10; i++) n = i + 1; return 'n=' + n + '!'": false,
		"const o = {a: 1}; o.b = 2; return `x${o.a}`":                              false,
		"const a = 'x', b = 'y'; return a + b":                                     true,
		"let s = 'x', t = 'y'; s += t; return s":                                   true,
		"const a = 1, b = 2; return `${a}${b}`":                                    true,
		"return Math.max(...[1, 2])":                                               true,
		"const [x, ...r] = [1, 2]; return r":                                       true,
		"const o = {}; o.toString = () => 'x'; return String(o)":                   true,
		"const o = {}, k = 'a'; o[k] = 1; return o":                                true,
	} {
		s, err := Parse("script.js", src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if s.helpers != want {
			t.Errorf("%s: helpers = %v, want %v", src, s.helpers, want)
		}
	}
}
