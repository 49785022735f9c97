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
	benchLoadRun(b, "export const meta = { name: 'x', description: 'y' }\nreturn { n: args.n + 1 }", `{"n":1}`)
}

// benchLoadRun measures a new runtime loading s, running it with args (JSON,
// "" for undefined) and exporting its value.
func benchLoadRun(b *testing.B, src, args string) {
	s, err := Parse("script.js", src)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		r := New(Options{})
		f, err := r.Load(s)
		if err != nil {
			b.Fatal(err)
		}
		var a goja.Value = goja.Undefined()
		if args != "" {
			a, _ = r.ParseJSON([]byte(args))
		}
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
	benchLoadRun(b, "return ['a-b c'.replace(/[-\\s]/g, '_'), /(?<=a)b/.test('ab'), 'x,y'.split(/,/)]", "")
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
			r.captureJSON()
			for b.Loop() {
				if _, err := r.jsonStringify(goja.Undefined(), v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNewLoadRunGuarded is BenchmarkNewLoadRun for a script with a
// computed member, which gets the counted conversion builtins
// (conversion.go) and the other guards of reachable builtins.
func BenchmarkNewLoadRunGuarded(b *testing.B) {
	benchLoadRun(b, "export const meta = { name: 'x', description: 'y' }\nconst k = 'n'\nreturn { n: args[k] + 1 }", `{"n":1}`)
}

// BenchmarkConcat builds 10,000 strings with + and a template whose sides
// are not literals (each a call of the size-checking helper, rewrite.go),
// and 10,000 sums.
func BenchmarkConcat(b *testing.B) {
	benchLoadRun(b, `let s = '', n = 0
for (let i = 0; i < 10000; i++) {
  const k = 'k' + i, v = String(i)
  s = k + v
  s = `+"`${k}=${v}`"+`
  n = n + i
}
return [s, n]`, "")
}
