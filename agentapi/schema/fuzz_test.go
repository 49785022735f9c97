package schema

import (
	"encoding/json"
	"testing"
)

// FuzzCompileMinimal feeds arbitrary bytes to Compile: it must never panic,
// and whenever Compile and Minimal succeed the minimal value validates.
func FuzzCompileMinimal(f *testing.F) {
	for _, c := range minimalCases {
		f.Add([]byte(c.schema))
	}
	for _, s := range []string{`true`, `[]`, `{"type":"array"}`, `{"$ref":"#"}`, `{"properties":{"a":{"$ref":"#/properties/a"}},"required":["a"]}`,
		`{"anyOf":[{"required":["a"]},{"minProperties":2}]}`, `{"properties":{"a":{"minItems":9999,"items":{"minItems":9999,"items":{"minLength":9999}}}},"required":["a"]}`, `{"properties":{"a":{"pattern":"^(a|b)+c{2,3}$","minLength":5}},"required":["a"]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Compile(json.RawMessage(data))
		if err != nil {
			return
		}
		m, err := s.Minimal()
		if err != nil {
			return
		}
		if err := s.Validate(m); err != nil {
			t.Fatalf("Minimal(%s) = %s does not validate: %v", data, m, err)
		}
	})
}
