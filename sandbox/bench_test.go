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

// BenchmarkExportJSON measures the bounded export (nesting.go) against
// goja's JSON.stringify, which it wraps.
func BenchmarkExportJSON(b *testing.B) {
	for _, tc := range []struct{ name, src string }{
		{"small", "({n: 2, s: 'x', a: [1, 2], o: {k: true}})"},
		{"array10k", "Array.from({length: 10000}, (_, i) => ({id: i, name: 'item ' + i, tags: ['a', 'b']}))"},
		{"numbers10k", "Array.from({length: 10000}, (_, i) => i)"},
	} {
		r := New(Options{})
		v, err := r.VM.RunString(tc.src)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(tc.name+"/bounded", func(b *testing.B) {
			for b.Loop() {
				if _, err := r.ExportJSON(v, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tc.name+"/goja", func(b *testing.B) {
			for b.Loop() {
				if _, err := r.jsonStringify(goja.Undefined(), v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
