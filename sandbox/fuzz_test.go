package sandbox

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/dop251/goja"

	"github.com/wfrun/wfrun/internal/wferr"
)

// FuzzParse: Parse never panics or hangs, and every error is SCRIPT_PARSE
// with a line >= 1 whenever it has a position.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../testdata/shared/*.js")
	bad, _ := filepath.Glob("../testdata/shared/bad/*.js")
	for _, p := range append(files, bad...) {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	for _, s := range []string{
		"})(); evil(); (async () => {", "const n: number = 3", "return /[^\\p{L}\\p{N}]+/gu", "`${`${", "/*", "'",
		"for await (const x of y) {}", "export default 1", "return /[/", "#!x\n}", "a?.b!.c", "<T>(x) => x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		_, err := Parse("fuzz.js", src)
		if err == nil {
			return
		}
		var we *wferr.Error
		if !errors.As(err, &we) || we.Code != wferr.ScriptParse {
			t.Fatalf("Parse(%q) = %v, want SCRIPT_PARSE", src, err)
		}
		if (we.Line != 0 || we.Column != 0) && (we.Line < 1 || we.Column < 1) {
			t.Fatalf("Parse(%q): position %d:%d", src, we.Line, we.Column)
		}
	})
}

// FuzzExportJSON: a value that came from JSON goes back to the same JSON
// (keys in order, numbers as JSON.stringify writes them), and a value a
// script builds exports without a panic, within the run's limits.
func FuzzExportJSON(f *testing.F) {
	for _, s := range []string{
		`{"a":1,"b":[true,null,"x"],"c":{"d":-0.5e-3}}`, `[]`, `"\u2028"`, `1e300`, `[[[[[]]]]]`,
		`{"__proto__":{"x":1}}`, `{"toJSON":"not a function"}`,
	} {
		f.Add(s, "v")
	}
	f.Add(`{"a":1}`, "({...v, get g() { return [v, undefined, () => 1] }})")
	f.Add(`[1,2]`, "v.map(x => new Date(x))")
	f.Add(`"x"`, "{ toJSON() { return this } }")
	f.Add(`0`, "(() => { const o = {}; o.self = o; return o })()")
	f.Fuzz(func(t *testing.T, data, expr string) {
		var a, b any
		if json.Unmarshal([]byte(data), &a) != nil {
			return // not JSON, or numbers Go cannot hold (1e400)
		}
		r := New(Options{})
		v, err := r.ParseJSON([]byte(data))
		if err != nil {
			return // too deep: refused by design
		}
		out, err := r.ExportJSON(v, 1<<20)
		if err != nil {
			if wferr.CodeOf(err) != wferr.ResourceLimit {
				t.Fatalf("ExportJSON of parsed %q: %v", data, err)
			}
			return
		}
		if json.Unmarshal(out, &b) != nil {
			t.Fatalf("ExportJSON(%q) = %q, not JSON", data, out)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("ExportJSON(%q) = %q", data, out)
		}

		s, err := Parse("fuzz.js", "return ("+expr+")")
		if err != nil {
			return
		}
		fn, err := r.Load(s)
		if err != nil {
			return
		}
		timer := time.AfterFunc(200*time.Millisecond, func() { r.VM.Interrupt(wferr.New(wferr.Timeout, "fuzz deadline")) })
		defer timer.Stop()
		res, err := fn(nil, v, nil)
		if err != nil {
			return
		}
		if p, ok := res.Export().(*goja.Promise); ok && p.State() == goja.PromiseStateFulfilled {
			out, err := r.ExportJSON(p.Result(), 1<<20)
			if err == nil && !json.Valid(out) {
				t.Fatalf("ExportJSON of %s = %q, not JSON", expr, out)
			}
		}
	})
}
