package minimal

import (
	"encoding/json"
	"testing"

	"github.com/wfrun/wfrun/agentapi/schema"
)

// FuzzValue feeds arbitrary bytes to schema.Compile and, when they compile,
// to Value (checkValue). The cases under testdata/fuzz/FuzzValue are the
// schemas that once searched for hours or built hundreds of megabytes.
func FuzzValue(f *testing.F) {
	for _, c := range minimalCases {
		f.Add([]byte(c.schema))
	}
	for _, s := range []string{`true`, `[]`, `{"type":"array"}`, `{"$ref":"#"}`, `{"properties":{"a":{"$ref":"#/properties/a"}},"required":["a"]}`,
		`{"anyOf":[{"required":["a"]},{"minProperties":2}]}`, `{"properties":{"a":{"minItems":9999,"items":{"minItems":9999,"items":{"minLength":9999}}}},"required":["a"]}`, `{"properties":{"a":{"pattern":"^(a|b)+c{2,3}$","minLength":5}},"required":["a"]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkValue(t, data) })
}

// checkValue compiles text and, when it compiles, checks what Value makes
// of it: no panic, an error or a value within the size bound that validates
// and comes out the same twice.
func checkValue(t *testing.T, text []byte) {
	s, err := schema.Compile(json.RawMessage(text))
	if err != nil {
		return
	}
	m, err := Value(s)
	if err != nil {
		return
	}
	if len(m) > maxSize {
		t.Fatalf("Value(%s) is %d bytes, over the bound of %d", text, len(m), maxSize)
	}
	if err := s.Validate(m); err != nil {
		t.Fatalf("Value(%s) = %s does not validate: %v", text, m, err)
	}
	if again, _ := Value(s); string(again) != string(m) {
		t.Fatalf("Value(%s) is not deterministic: %s, then %s", text, m, again)
	}
}

// FuzzValueOfBuiltSchema builds a schema from the fuzzer's bytes, a keyword
// at a time (types, bounds, patterns, formats, combinators, $refs into $defs
// and back to the root), so that the fuzzer reaches the combinations that
// random text almost never compiles to; checkValue judges the result.
func FuzzValueOfBuiltSchema(f *testing.F) {
	for _, seed := range []string{"", "\x00", "\x01\x02\x03", "\x10\x20\x30\x40\x50", "\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8",
		"\x05\x07\x09\x0b\x0d\x0f\x11\x13\x15\x17\x19", "\x0e\x0e\x0e\x0e\x0e\x0e\x0e\x0e\x0e\x0e\x0e\x0e\x0e\x0e"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		b := &builder{data: data}
		root := b.object(0)
		root["$defs"] = map[string]any{"d0": b.node(1), "d1": b.node(1)}
		text, err := json.Marshal(root)
		if err != nil {
			t.Fatal(err)
		}
		checkValue(t, text)
	})
}

// builder turns fuzz bytes into a schema. Every choice reads one byte; past
// the end of the data every choice is 0, which ends the schema.
type builder struct {
	data []byte
	i    int
}

func (b *builder) next() int {
	if b.i >= len(b.data) {
		return 0
	}
	b.i++
	return int(b.data[b.i-1])
}

func (b *builder) pick(options ...any) any { return options[b.next()%len(options)] }

// node is any sub-schema: a boolean, a $ref, or an object of keywords.
func (b *builder) node(depth int) any {
	if depth > 4 {
		return b.pick(true, map[string]any{"type": "string"}, map[string]any{"$ref": "#/$defs/d0"})
	}
	switch b.next() % 10 {
	case 0:
		return b.object(depth)
	case 1:
		return b.pick(true, false)
	case 2:
		return map[string]any{"$ref": b.pick("#", "#/$defs/d0", "#/$defs/d1")}
	}
	return b.object(depth)
}

// object is a schema object with up to eight keywords.
func (b *builder) object(depth int) map[string]any {
	o := map[string]any{}
	for range b.next() % 9 {
		switch b.next() % 24 {
		case 0:
			o["type"] = b.pick("object", "array", "string", "integer", "number", "boolean", "null", []any{"string", "null"}, []any{"integer", "string"})
		case 1:
			props := map[string]any{}
			for range 1 + b.next()%3 {
				props[b.pick("a", "b", "c", "a/b", "~").(string)] = b.node(depth + 1)
			}
			o["properties"] = props
		case 2:
			o["required"] = b.pick([]any{"a"}, []any{"a", "b"}, []any{"c", "a"}, []any{"x"})
		case 3:
			o["enum"] = b.pick([]any{1, "x"}, []any{nil}, []any{map[string]any{"a": 1}}, []any{[]any{}, 2.5})
		case 4:
			o["const"] = b.pick(0, "k", false, map[string]any{"a": "b"}, []any{1})
		case 5, 6, 7:
			var list []any
			for range 1 + b.next()%3 {
				list = append(list, b.node(depth+1))
			}
			o[b.pick("anyOf", "oneOf", "allOf").(string)] = list
		case 8:
			o[b.pick("minItems", "maxItems", "minProperties", "maxProperties", "minContains").(string)] = b.next() % 5
		case 9:
			o[b.pick("minLength", "maxLength").(string)] = b.next() % 12
		case 10:
			o["pattern"] = b.pick("^a+$", "^[A-Z]{2}\\d+$", "x|yz", "^(ab)*c?$", "^$", "[^a]", "^\\w{3,}$")
		case 11:
			o["format"] = b.pick("date", "date-time", "email", "uri", "uuid", "ipv4", "hostname", "unknown-format")
		case 12:
			o[b.pick("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum").(string)] = b.pick(-3, 0, 0.5, 2, 7)
		case 13:
			o["multipleOf"] = b.pick(0.25, 3, 5, 0.1)
		case 14:
			o["items"] = b.node(depth + 1)
		case 15:
			o["prefixItems"] = []any{b.node(depth + 1), b.node(depth + 1)}
		case 16:
			o["contains"] = b.node(depth + 1)
		case 17:
			o["not"] = b.node(depth + 1)
		case 18:
			o["additionalProperties"] = b.node(depth + 1)
		case 19:
			o["patternProperties"] = map[string]any{b.pick("^p", "^a$", ".").(string): b.node(depth + 1)}
		case 20:
			o["examples"] = []any{b.pick("ex", 4, map[string]any{"a": "x"}, []any{})}
		case 21:
			o["default"] = b.pick("d", 1, nil, map[string]any{})
		case 22:
			o["if"], o["then"] = b.node(depth+1), b.node(depth+1)
		case 23:
			o["uniqueItems"] = true
		}
	}
	return o
}
