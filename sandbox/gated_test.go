package sandbox

import (
	"strings"
	"testing"

	"github.com/dop251/goja"

	"github.com/wfrun/wfrun/internal/wferr"
)

// The guards on Date, Math.random and eval and the isWellFormed and
// toWellFormed polyfills are installed by Load, for a script that names
// them (or globalThis or this). These tests reach each one without naming
// it, and in a second script loaded into the same runtime.

// sloppyGlobal evaluates to the global object without naming globalThis.
const sloppyGlobal = "(function () { return this })()"

var unnamedReaches = []struct{ name, expr, want string }{
	{"Date.now", "G['Da' + 'te'].now()", "Date.now() is not available"},
	{"new Date", "new (G['Da' + 'te'])()", "new Date() without arguments is not available"},
	{"Date()", "G['Da' + 'te']()", "Date() is not available"},
	{"Math.random", "G['Ma' + 'th']['ran' + 'dom']()", "Math.random() is not available"},
	{"eval", "G['ev' + 'al']('1')", "eval is not available"},
	{"Function", "G['Func' + 'tion']('return 1')()", "new Function is not available"},
}

func TestGated_GuardsHoldThroughGlobalThisAndThis(t *testing.T) {
	for _, g := range []string{"globalThis", sloppyGlobal} {
		for _, tc := range unnamedReaches {
			src := "const G = " + g + "\nreturn " + tc.expr
			e := runErr(t, src)
			if e.Code != wferr.ScriptError || !strings.Contains(e.Message, "TypeError: "+tc.want) {
				t.Errorf("%s via %s: got %v", tc.name, g, e)
			}
		}
		out, err := run(t, "const G = "+g+"\nconst s = G['Str' + 'ing'].prototype\n"+
			"return [s['is' + 'Well' + 'Formed'].call('a\\ud800'), s['to' + 'Well' + 'Formed'].call('a\\ud800') === 'a\\ufffd']", "")
		if err != nil || string(out) != "[false,true]" {
			t.Errorf("isWellFormed via %s: got %s, %v", g, out, err)
		}
	}
}

func TestGated_GuardsHoldForEscapedAndQuotedNames(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"return D\\u0061te.now()", "Date.now() is not available"},
		{"return M\\u0061th.random()", "Math.random() is not available"},
		{"return (0, \\u0065val)('1')", "eval is not available"},
	} {
		if e := runErr(t, tc.src); !strings.Contains(e.Message, "TypeError: "+tc.want) {
			t.Errorf("%q: got %v", tc.src, e)
		}
	}
	out, err := run(t, "return ['a\\ud800'['isWellFormed'](), 'b'['toWellFormed']()]", "")
	if err != nil || string(out) != `[false,"b"]` {
		t.Errorf("quoted isWellFormed: got %s, %v", out, err)
	}
}

// loadRun loads s into r and runs it to its settled result.
func loadRun(t *testing.T, r *Runtime, src string) (string, error) {
	t.Helper()
	s, err := Parse("nested.js", src)
	if err != nil {
		t.Fatal(err)
	}
	f, err := r.Load(s)
	if err != nil {
		return "", err
	}
	v, err := f(goja.Undefined(), goja.Undefined(), goja.Undefined())
	if err != nil {
		return "", r.Error(err)
	}
	p := v.Export().(*goja.Promise)
	if p.State() == goja.PromiseStateRejected {
		return "", r.RejectionError(p.Result())
	}
	out, err := r.ExportJSON(p.Result(), 0)
	return string(out), err
}

func TestGated_GuardsHoldInASecondScript(t *testing.T) {
	type reach struct{ name, src, want string }
	var reaches []reach
	for _, tc := range unnamedReaches {
		reaches = append(reaches,
			reach{tc.name + " via globalThis", "const G = globalThis\nreturn " + tc.expr, tc.want},
			reach{tc.name + " via this", "const G = " + sloppyGlobal + "\nreturn " + tc.expr, tc.want})
	}
	reaches = append(reaches,
		reach{"Date.now", "return Date.now()", "Date.now() is not available"},
		reach{"new Date", "return new Date()", "new Date() without arguments is not available"},
		reach{"Math.random", "return Math.random()", "Math.random() is not available"},
		reach{"eval", "return eval('1')", "eval is not available"})
	// The first script names none of the guarded builtins, or names the
	// others, or all of them (globalThis), or replaces the unguarded ones.
	for _, first := range []string{
		"return 1",
		"return [JSON.stringify(Object.keys({a: 1})), [1, [2]].join()]",
		"return typeof Math.abs",
		"return typeof globalThis",
		"return typeof Date.UTC",
	} {
		for _, tc := range reaches {
			r := New(Options{})
			if out, err := loadRun(t, r, first); err != nil {
				t.Fatalf("%q: %s %v", first, out, err)
			}
			out, err := loadRun(t, r, tc.src)
			if err == nil || !strings.Contains(err.Error(), "TypeError: "+tc.want) {
				t.Errorf("%s after %q: got %s, %v", tc.name, first, out, err)
			}
		}
		r := New(Options{})
		if _, err := loadRun(t, r, first); err != nil {
			t.Fatal(err)
		}
		out, err := loadRun(t, r, "return ['a\\ud800'.isWellFormed(), 'a\\ud800'.toWellFormed() === 'a\\ufffd']")
		if err != nil || out != "[false,true]" {
			t.Errorf("isWellFormed after %q: got %s, %v", first, out, err)
		}
	}
}

// A Date made in a second script, after the guard went in, still works
// with values; and the first script, which did not name Date, sees the
// guarded one too.
func TestGated_SecondScriptDateWorksWithValues(t *testing.T) {
	r := New(Options{})
	if _, err := loadRun(t, r, "return 1"); err != nil {
		t.Fatal(err)
	}
	out, err := loadRun(t, r, "const d = new Date(0)\nreturn [d.toISOString(), d instanceof Date, d.constructor === Date]")
	if err != nil || out != `["1970-01-01T00:00:00.000Z",true,true]` {
		t.Errorf("got %s, %v", out, err)
	}
}

// A script that names none of the gated builtins costs no installer run.
func TestGated_TrivialScriptRunsNoInstaller(t *testing.T) {
	r := New(Options{})
	if out, err := loadRun(t, r, "return {n: 1}"); err != nil || out != `{"n":1}` {
		t.Fatalf("got %s, %v", out, err)
	}
	if r.installer != nil || len(r.installed) != 0 || r.wellFormed {
		t.Errorf("installer ran: installed %v, wellFormed %v", r.installed, r.wellFormed)
	}
}
