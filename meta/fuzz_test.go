package meta

import (
	"encoding/json"
	"testing"
)

func FuzzFromLiteral(f *testing.F) {
	for _, seed := range []string{
		`{ name: 'x', description: 'd' }`,
		`{ name: 'x', description: ['a', 'b'].join(' ') }`,
		`{ get name() { return 1 }, [k]: 1, ...s, a, b: ` + "`${c}`" + ` }`,
		`{ a: [1, , -2.5e-9, 0x1f, 1n, 1e400], 'b c': { 1: null, 1.0: true } }`,
		`{ __proto__: {}, f: (() => { while (true) {} })(), g: /x/ }`,
		"`x`", `-1`, `null`, `[...a]`, `{ a: x?.y?.(), b: tag` + "`t`" + ` }`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, input string) {
		expr, pos, ok := parseMeta("const meta = " + input)
		if !ok {
			return
		}
		raw, err := FromLiteral(expr, pos)
		if err != nil {
			return
		}
		if !json.Valid(raw) {
			t.Fatalf("FromLiteral(%q) = %s, not valid JSON", input, raw)
		}
		_, _, _ = Parse(raw)
		if _, err := Merge(raw, raw); err != nil {
			t.Fatalf("Merge of %s with itself: %v", raw, err)
		}
	})
}

func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{"name":"x","description":"d"}`,
		`{"name":"bad name","description":"","phases":[{"title":""},1,{"x":2}],"y":null}`,
		`[]`, `null`, `{"name":"x","name":"y"}`, `{`, ``, `"\ud800"`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		m, _, err := Parse(raw)
		if err != nil {
			return
		}
		if m.Name == "" || m.Description == "" {
			t.Fatalf("Parse(%q) accepted meta without name or description: %+v", raw, m)
		}
		if _, err := Merge(raw, raw); err != nil {
			t.Fatalf("Merge of valid meta %q with itself: %v", raw, err)
		}
	})
}
