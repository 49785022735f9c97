package sandbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/dop251/goja"
	"github.com/wfrun/wfrun/internal/testkit/leaktest"
)

// regexp2's timeout clock goroutine outlives the matches that started it
// by about two and a half seconds, then exits (see regexp.go). Its top
// frame is time.Sleep or a mutex, so only IgnoreAnyFunction matches it.
func TestMain(m *testing.M) {
	leaktest.VerifyTestMain(m)
}

// run parses and runs src in a fresh runtime with args (JSON, or "" for
// undefined) and returns the JSON of its result or the converted error.
// Scripts here await only settled promises, so one call drains them.
func run(t testing.TB, src, args string) (json.RawMessage, error) {
	t.Helper()
	return runOpts(t, Options{}, src, args)
}

// runOpts is run in a runtime made with opts.
func runOpts(t testing.TB, opts Options, src, args string) (json.RawMessage, error) {
	t.Helper()
	s, err := Parse("script.js", src)
	if err != nil {
		return nil, err
	}
	r := New(opts)
	f, err := r.Load(s)
	if err != nil {
		return nil, err
	}
	a := goja.Undefined()
	if args != "" {
		if a, err = r.ParseJSON([]byte(args)); err != nil {
			t.Fatalf("args: %v", err)
		}
	}
	v, err := f(goja.Undefined(), a, goja.Undefined())
	if err != nil {
		return nil, r.Error(err)
	}
	p, ok := v.Export().(*goja.Promise)
	if !ok {
		t.Fatalf("F returned %v, not a promise", v)
	}
	switch p.State() {
	case goja.PromiseStateFulfilled:
		return r.ExportJSON(p.Result(), 0)
	case goja.PromiseStateRejected:
		return nil, r.RejectionError(p.Result())
	}
	t.Fatalf("promise still pending")
	return nil, nil
}

func readTestdata(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "shared", name)) // the shared scripts, one copy for every package
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
