package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/internal/wferr"
)

func TestMemory_AllocationsByArgumentAreRefusedBeforeTheyHappen(t *testing.T) {
	cases := []struct {
		name, src, contains string
	}{
		{"a terabyte buffer", "return new ArrayBuffer(2**40).byteLength", "new ArrayBuffer(…) would allocate"},
		{"a resizable buffer's maximum", "return new ArrayBuffer(8, { maxByteLength: 2**40 }).byteLength", "maxByteLength"},
		{"a typed array by length", "return new Float64Array(2**31).length", "new Float64Array(…) would allocate"},
		{"a typed array from an array-like", "return new Uint8Array({ length: 2**40 }).length", "new Uint8Array(…)"},
		{"a typed array's from", "return Int32Array.from({ length: 2**34 }).length", "Int32Array.from"},
		{"a gigabyte string", "return 'x'.repeat(2**30).length", "String.prototype.repeat would build a string of 1,073,741,824 characters"},
		{"repeat of a long string", "const s = 'ab'.repeat(2**20); return s.repeat(2**10).length", "String.prototype.repeat"},
		{"padStart", "return ''.padStart(2**31).length", "String.prototype.padStart"},
		{"padEnd", "return 'a'.padEnd(2**31, 'xy').length", "String.prototype.padEnd"},
		{"a huge sparse array", "return new Array(2**32 - 1).length", "new Array(4294967295)"},
		{"Array called as a function", "return Array(2**30).length", "new Array(1073741824)"},
		{"Array.from an array-like", "return Array.from({ length: 2**32 - 1 }).length", "Array.from would work on 4,294,967,295"},
		{"map over a sparse array made by assignment", "const a = []; a.length = 2**32 - 1; return a.map(x => x).length", "Array.prototype.map would work on 4,294,967,295"},
		{"fill", "const a = []; a.length = 2**30; return a.fill(0).length", "Array.prototype.fill"},
		{"join", "const a = []; a.length = 2**30; return a.join('-').length", "Array.prototype.join"},
		{"toSorted", "const a = []; a.length = 2**30; return a.toSorted().length", "Array.prototype.toSorted"},
		{"concat's arguments", "const a = []; a.length = 2**30; return [1].concat(a).length", "Array.prototype.concat"},
		{"reached by a computed name", "const k = 're' + 'peat'; return 'x'[k](2**30).length", "String.prototype.repeat"},
		{"reached by a quoted name", "return 'x'['repeat'](2**30).length", "String.prototype.repeat"},
		{"reached by a quoted key in a pattern", "const { 'padStart': p } = String.prototype; return p.call('x', 2**30).length", "String.prototype.padStart"},
		{"a length set through a quoted name", "const a = []; a['length'] = 2**30; return a.fill(0).length", "Array.prototype.fill"},
		{"reached through globalThis", "return new globalThis['Uint' + '8Array'](2**40).length", "new Uint8Array(…)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := run(t, c.src, "")
			if err == nil {
				t.Fatalf("allowed: %s", out)
			}
			e, ok := wferr.As(err)
			if !ok || e.Code != wferr.ResourceLimit || !strings.Contains(e.Message, c.contains) || !strings.Contains(e.Message, "256 MiB") {
				t.Fatalf("err = %v, want RESOURCE_LIMIT naming %q and the 256 MiB limit", err, c.contains)
			}
			if e.Line != 1 {
				t.Fatalf("no position: %v", e)
			}
		})
	}
}

func TestMemory_ARefusalCannotBeCaught(t *testing.T) {
	out, err := run(t, "try { 'x'.repeat(2**30) } catch (e) { return 'caught ' + e } return 'went on'", "")
	if wferr.CodeOf(err) != wferr.ResourceLimit {
		t.Fatalf("got %s, %v: a refusal must end the run", out, err)
	}
}

func TestMemory_TheLimitFollowsTheBudget(t *testing.T) {
	if _, err := runOpts(t, Options{MaxMemory: 1 << 20}, "return 'x'.repeat(2 << 20).length", ""); wferr.CodeOf(err) != wferr.ResourceLimit ||
		!strings.Contains(err.Error(), "1 MiB") {
		t.Fatalf("a 1 MiB budget allowed a 2 MiB string: %v", err)
	}
	if out, err := runOpts(t, Options{MaxMemory: 1 << 30}, "return 'x'.repeat(300 << 20).length", ""); err != nil || string(out) != "314572800" {
		t.Fatalf("a 1 GiB budget refused a 300 MiB string: %s %v", out, err)
	}
}

func TestMemory_OrdinaryUseIsUnchanged(t *testing.T) {
	cases := []struct{ src, want string }{
		{"return 'ab'.repeat(3) + 'x'.padStart(3, '-') + 'y'.padEnd(2, '.')", `"ababab--xy."`},
		{"return new Array(3).fill(0)", `[0,0,0]`},
		{"return Array(2).length + Array.of(7, 8).length + Array.from({length: 2}, (_, i) => i).length", `6`},
		{"return Array.from([1, 2], x => x * 2)", `[2,4]`},
		{"return [3, 1, 2].toSorted().concat([4]).map(x => x + 1).join('-')", `"2-3-4-5"`},
		{"return [[] instanceof Array, Array.isArray([]), [].constructor === Array, new Array(1, 2).length]", `[true,true,true,2]`},
		{"class Stack extends Array {}; const s = new Stack(); s.push(1); return [s instanceof Stack, s.map(x => x) instanceof Stack, s.length]", `[true,true,1]`},
		{"const b = new Uint8Array([1, 2, 3]); return [b.length, b instanceof Uint8Array, Uint8Array.from([1, 2]).length, new Uint8Array(b.buffer).length, Uint8Array.BYTES_PER_ELEMENT]", `[3,true,2,3,1]`},
		{"const buf = new ArrayBuffer(8); return [buf.byteLength, ArrayBuffer.isView(new DataView(buf)), new Float64Array(buf).length]", `[8,true,1]`},
		{"let f; try { Uint8Array(2) } catch (e) { f = e instanceof TypeError } return f", `true`},
	}
	for _, c := range cases {
		out, err := run(t, c.src, "")
		if err != nil || string(out) != c.want {
			t.Errorf("%s\n= %s, %v; want %s", c.src, out, err, c.want)
		}
	}
}

func TestMemory_StringGuardsAreInstalledOnlyWhereAScriptCanReachThem(t *testing.T) {
	cases := []struct {
		src   string
		reach bool
	}{
		{"return await agent('x')", false},
		{"return args.items.map(x => x.name).join(', ')", false},
		{"return 'ab'.repeat(2)", true},
		{"return s[k]", true},
		{"return s[0] + s['name']", false},
		{"const {[k]: f} = o; return f", true},
		{"return Reflect.get(o, k)", true},
		{"return ({}).constructor.getOwnPropertyNames(o)", true},
		{"return this", true},
	}
	for _, c := range cases {
		s, err := Parse("script.js", c.src)
		if err != nil {
			t.Fatal(err)
		}
		if s.stringReach != c.reach {
			t.Errorf("%s: stringReach = %v, want %v", c.src, s.stringReach, c.reach)
		}
	}
}

func TestMemory_ArrayGuardsAreInstalledOnlyWhereAScriptCanGiveAHugeLength(t *testing.T) {
	cases := []struct {
		src   string
		reach bool
	}{
		{"return args.items.map(x => x.name).filter(Boolean)", false},
		{"const a = [1, 2]; a[0] = 3; a[1] += 1; return a", false},
		{"const a = []; a.length = 2**32 - 1; return a.map(f)", true},
		{"const a = []; a[k] = 1; return a", true},
		{"const a = []; a[4294967294] = 1; return a", true},
		{"a.length++", true},
		{"[x, a.length] = [1, 2]", true},
		{"for (a[k] of xs) {}", true},
		{"return Array.prototype.map.call(o, f)", true},
		{"return Object.assign([], o)", true},
		{"return { __proto__: p, length: 9 }", true},
		{"const n = a.length; return n", false},
	}
	for _, c := range cases {
		s, err := Parse("script.js", c.src)
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		if s.arrayReach != c.reach {
			t.Errorf("%s: arrayReach = %v, want %v", c.src, s.arrayReach, c.reach)
		}
	}
}

func TestMemory_TheSharedScriptsPayForNoArrayGuards(t *testing.T) {
	files, _ := filepath.Glob("../testdata/shared/*.js")
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Parse(filepath.Base(f), string(src))
		if err != nil {
			t.Fatal(err)
		}
		if s.arrayReach {
			t.Errorf("%s installs the array length guards", f)
		}
	}
}
