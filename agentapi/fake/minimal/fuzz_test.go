package minimal

import (
	"encoding/json"
	"testing"

	"github.com/wfrun/wfrun/agentapi/schema"
)

// FuzzValue feeds arbitrary bytes to schema.Compile and, when they compile,
// to Value: neither may panic, and whenever Value succeeds its value
// validates against the schema and stays within the size bound.
func FuzzValue(f *testing.F) {
	for _, c := range minimalCases {
		f.Add([]byte(c.schema))
	}
	for _, s := range []string{`true`, `[]`, `{"type":"array"}`, `{"$ref":"#"}`, `{"properties":{"a":{"$ref":"#/properties/a"}},"required":["a"]}`,
		`{"anyOf":[{"required":["a"]},{"minProperties":2}]}`, `{"properties":{"a":{"minItems":9999,"items":{"minItems":9999,"items":{"minLength":9999}}}},"required":["a"]}`, `{"properties":{"a":{"pattern":"^(a|b)+c{2,3}$","minLength":5}},"required":["a"]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := schema.Compile(json.RawMessage(data))
		if err != nil {
			return
		}
		m, err := Value(s)
		if err != nil {
			return
		}
		if len(m) > maxSize {
			t.Fatalf("Value(%s) is %d bytes, over the bound of %d", data, len(m), maxSize)
		}
		if err := s.Validate(m); err != nil {
			t.Fatalf("Value(%s) = %s does not validate: %v", data, m, err)
		}
	})
}
