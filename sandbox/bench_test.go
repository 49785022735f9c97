package sandbox

import (
	"testing"

	"github.com/dop251/goja"
)

func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		New(Options{})
	}
}

func BenchmarkNewLoadRun(b *testing.B) {
	s, err := Parse("script.js", "export const meta = { name: 'x', description: 'y' }\nreturn { n: args.n + 1 }")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		r := New(Options{})
		f, err := r.Load(s)
		if err != nil {
			b.Fatal(err)
		}
		a, _ := r.ParseJSON([]byte(`{"n":1}`))
		v, err := f(goja.Undefined(), a, goja.Undefined())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.ExportJSON(v.Export().(*goja.Promise).Result(), 0); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	src := readTestdata(b, "audit-pipeline.js")
	for b.Loop() {
		if _, err := Parse("audit-pipeline.js", src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGojaNew is the floor BenchmarkNew is measured against.
func BenchmarkGojaNew(b *testing.B) {
	for b.Loop() {
		goja.New()
	}
}

// BenchmarkNewLoadRunRegexp measures a run whose script uses regexps, which
// installs the regexp time guard (regexp.go).
func BenchmarkNewLoadRunRegexp(b *testing.B) {
	s, err := Parse("script.js", "return ['a-b c'.replace(/[-\\s]/g, '_'), /(?<=a)b/.test('ab'), 'x,y'.split(/,/)]")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		r := New(Options{})
		f, err := r.Load(s)
		if err != nil {
			b.Fatal(err)
		}
		v, err := f(goja.Undefined(), goja.Undefined(), goja.Undefined())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.ExportJSON(v.Export().(*goja.Promise).Result(), 0); err != nil {
			b.Fatal(err)
		}
	}
}
