package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
)

// ErrTrailing is the error of Decode for text after the value.
var ErrTrailing = errors.New("text after the JSON value")

// Decode decodes data, which must hold exactly one JSON value, into v,
// refusing object fields that v's type does not have.
func Decode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return ErrTrailing
	}
	return nil
}

// Kind is which mistake a Problem is.
type Kind int

// The kinds of Problem.
const (
	Other        Kind = iota // none of the others: Err says what
	Empty                    // no value at all
	Truncated                // the text ends in the middle of a value
	Syntax                   // the text is not JSON from Offset on
	Trailing                 // text follows the value
	WrongRoot                // the value as a whole has the wrong type (an array where an object belongs): Got, Want
	WrongField               // a field's value has the wrong type: Field, Got, Want
	UnknownField             // a field the type does not have: Field
)

// Problem is what was wrong with a JSON text, from its decoding error.
type Problem struct {
	Kind   Kind
	Field  string // WrongField: the field's dotted path ("output.field"); UnknownField: its name, unquoted
	Got    string // WrongRoot, WrongField: the JSON kind found ("string", "array", "number", "bool", "object")
	Want   string // WrongRoot, WrongField: what belongs there, in words (Describe)
	Offset int64  // Syntax: the byte at which the text stops being JSON
	Err    error  // the error explained
}

// Explain says what the error err of Decode or json.Unmarshal into v
// means. v (nil is allowed) lets Want name the whole field: encoding/json
// reports a wrong element of an array or object with the element's type
// ("a string") under the field's name, where "an array of strings" says
// what belongs in the field.
func Explain(err error, v any) Problem {
	p := Problem{Kind: Other, Err: err}
	var (
		typ *json.UnmarshalTypeError
		syn *json.SyntaxError
	)
	switch {
	case errors.As(err, &typ):
		p.Kind, p.Field, p.Got, p.Want = WrongField, typ.Field, typ.Value, "a JSON value"
		if t := fieldType(reflect.TypeOf(v), typ.Field); t != nil {
			p.Want = Describe(t)
		} else if typ.Type != nil {
			p.Want = Describe(typ.Type)
		}
		if typ.Field == "" {
			p.Kind = WrongRoot
		}
	case errors.As(err, &syn) && syn.Error() == "unexpected end of JSON input":
		p.Kind = Truncated
		if syn.Offset == 0 {
			p.Kind = Empty
		}
	case errors.As(err, &syn):
		p.Kind, p.Offset = Syntax, syn.Offset
	case errors.Is(err, io.ErrUnexpectedEOF):
		p.Kind = Truncated
	case errors.Is(err, io.EOF):
		p.Kind = Empty
	case errors.Is(err, ErrTrailing):
		p.Kind = Trailing
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		p.Kind, p.Field = UnknownField, strings.TrimPrefix(err.Error(), "json: unknown field ")
		if name, uerr := strconv.Unquote(p.Field); uerr == nil {
			p.Field = name
		}
	}
	return p
}

// Describe names in words what JSON a value of Go type t takes: "a
// string", "true or false", "a whole number", "an array of strings", "an
// object of strings", "an object".
func Describe(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		if of := plural(t.Elem()); of != "" {
			return "an array of " + of
		}
		return "an array"
	case reflect.Map:
		if of := plural(t.Elem()); of != "" {
			return "an object of " + of
		}
		return "an object"
	case reflect.Struct:
		if allBool(t) {
			return "an object of true or false"
		}
		return "an object"
	}
	return "a JSON value"
}

// plural names the elements of an array or object of t, or "" where the
// plain "an array" says enough.
func plural(t reflect.Type) string {
	switch d := Describe(t); d {
	case "true or false":
		return d
	case "a string", "a whole number", "a number":
		return strings.TrimPrefix(d, "a ") + "s"
	case "an object":
		return "objects"
	}
	return ""
}

// allBool reports whether every JSON field of the struct t is a bool.
func allBool(t reflect.Type) bool {
	n := 0
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || f.Tag.Get("json") == "-" {
			continue
		}
		if f.Type.Kind() != reflect.Bool {
			return false
		}
		n++
	}
	return n > 0
}

// fieldType is the type of the field at the dotted JSON path in the value
// of type t points to, or nil where t does not say.
func fieldType(t reflect.Type, path string) reflect.Type {
	if t == nil || path == "" {
		return nil
	}
	t = t.Elem() // v is a pointer
	for _, name := range strings.Split(path, ".") {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return nil
		}
		f, ok := jsonField(t, name)
		if !ok {
			return nil
		}
		t = f
	}
	return t
}

// jsonField finds the field of struct t that JSON calls name, in t or in
// the structs it embeds.
func jsonField(t reflect.Type, name string) (reflect.Type, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case tag == "-":
		case f.Anonymous && tag == "" && f.Type.Kind() == reflect.Struct:
			if ft, ok := jsonField(f.Type, name); ok {
				return ft, true
			}
		case tag == name, tag == "" && f.IsExported() && strings.EqualFold(f.Name, name):
			return f.Type, true
		}
	}
	return nil, false
}
