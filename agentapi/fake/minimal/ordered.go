package minimal

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
)

// object is a JSON object that remembers the order of its keys. Values in
// the ordered form are *object, []any, json.Number, string, bool and nil.
type object struct {
	keys []string
	vals map[string]any
}

func newObject() *object { return &object{vals: map[string]any{}} }

func (o *object) get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

func (o *object) set(k string, v any) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

// without returns a shallow copy of o without the given keys.
func (o *object) without(drop ...string) *object {
	c := newObject()
	for _, k := range o.keys {
		skip := false
		for _, d := range drop {
			if k == d {
				skip = true
				break
			}
		}
		if !skip {
			c.set(k, o.vals[k])
		}
	}
	return c
}

// parseOrdered decodes one JSON value, keeping object key order. A
// duplicated key keeps its first position and its last value, as
// encoding/json does.
func parseOrdered(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := parseValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

func parseValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := newObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				o.set(k, v)
			}
			_, err := dec.Token() // '}'
			return o, err
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := parseValue(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			_, err := dec.Token() // ']'
			return arr, err
		}
		return nil, errors.New("unexpected delimiter")
	default:
		return t, nil // json.Number, string, bool, nil
	}
}

// encode writes v in compact JSON, objects in key order. HTML characters
// stay as they are: the output is read by scripts and people, not browsers.
func encode(v any) []byte {
	var b bytes.Buffer
	encodeTo(&b, v)
	return b.Bytes()
}

func encodeTo(b *bytes.Buffer, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if v {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case json.Number:
		b.WriteString(string(v))
	case string:
		encodeString(b, v)
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			encodeTo(b, e)
		}
		b.WriteByte(']')
	case *object:
		b.WriteByte('{')
		for i, k := range v.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			encodeString(b, k)
			b.WriteByte(':')
			encodeTo(b, v.vals[k])
		}
		b.WriteByte('}')
	}
}

func encodeString(b *bytes.Buffer, s string) {
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a Go string always encodes
	b.WriteString(strings.TrimSuffix(sb.String(), "\n"))
}

// equalJSON reports whether a and b are the same JSON value.
func equalJSON(a, b any) bool { return bytes.Equal(encodeCanonical(a), encodeCanonical(b)) }

// encodeCanonical encodes with object keys sorted, for comparisons.
func encodeCanonical(v any) []byte {
	if o, ok := v.(*object); ok {
		c := newObject()
		keys := append([]string(nil), o.keys...)
		slices.Sort(keys)
		for _, k := range keys {
			c.set(k, json.RawMessage(encodeCanonical(o.vals[k])))
		}
		var b bytes.Buffer
		b.WriteByte('{')
		for i, k := range c.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			encodeString(&b, k)
			b.WriteByte(':')
			b.Write(c.vals[k].(json.RawMessage))
		}
		b.WriteByte('}')
		return b.Bytes()
	}
	if arr, ok := v.([]any); ok {
		var b bytes.Buffer
		b.WriteByte('[')
		for i, e := range arr {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(encodeCanonical(e))
		}
		b.WriteByte(']')
		return b.Bytes()
	}
	return encode(v)
}
