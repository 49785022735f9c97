package strictjson

import (
	"encoding/json"
	"reflect"
	"testing"
)

type sample struct {
	Name string            `json:"name"`
	Args []string          `json:"args"`
	Env  map[string]string `json:"env"`
	N    int               `json:"n"`
	Caps struct {
		Tools bool `json:"tools"`
	} `json:"caps"`
	Out struct {
		Field string `json:"field"`
	} `json:"out"`
}

func TestExplain(t *testing.T) {
	for _, c := range []struct {
		text string
		want Problem // Err is not compared
	}{
		{``, Problem{Kind: Empty}},
		{`  `, Problem{Kind: Empty}},
		{`{"name": `, Problem{Kind: Truncated}},
		{`{"name": x}`, Problem{Kind: Syntax, Offset: 10}},
		{`{} {}`, Problem{Kind: Trailing}},
		{`[1]`, Problem{Kind: WrongRoot, Got: "array", Want: "an object"}},
		{`{"args": "a b"}`, Problem{Kind: WrongField, Field: "args", Got: "string", Want: "an array of strings"}},
		{`{"env": {"A": 1}}`, Problem{Kind: WrongField, Field: "env", Got: "number", Want: "an object of strings"}},
		{`{"args": [1]}`, Problem{Kind: WrongField, Field: "args", Got: "number", Want: "an array of strings"}},
		{`{"caps": {"tools": "yes"}}`, Problem{Kind: WrongField, Field: "caps.tools", Got: "string", Want: "true or false"}},
		{`{"env": []}`, Problem{Kind: WrongField, Field: "env", Got: "array", Want: "an object of strings"}},
		{`{"n": "3"}`, Problem{Kind: WrongField, Field: "n", Got: "string", Want: "a whole number"}},
		{`{"caps": 1}`, Problem{Kind: WrongField, Field: "caps", Got: "number", Want: "an object of true or false"}},
		{`{"out": {"field": 3}}`, Problem{Kind: WrongField, Field: "out.field", Got: "number", Want: "a string"}},
		{`{"nmae": "x"}`, Problem{Kind: UnknownField, Field: "nmae"}},
	} {
		var v sample
		err := Decode([]byte(c.text), &v)
		if err == nil {
			t.Errorf("%q: decoded", c.text)
			continue
		}
		got := Explain(err, &v)
		got.Err = nil
		if got != c.want {
			t.Errorf("%q (%v): %+v, want %+v", c.text, err, got, c.want)
		}
	}
}

// json.Unmarshal says an empty or cut text with a SyntaxError; Explain
// tells them apart as Decode's errors do.
func TestExplainUnmarshal(t *testing.T) {
	for text, want := range map[string]Kind{``: Empty, `{"a": `: Truncated, `{"a" 1}`: Syntax} {
		if got := Explain(json.Unmarshal([]byte(text), new(any)), nil).Kind; got != want {
			t.Errorf("%q: kind %d, want %d", text, got, want)
		}
	}
}

func TestDescribe(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{"", "a string"}, {true, "true or false"}, {int64(1), "a whole number"}, {1.5, "a number"},
		{[]int{}, "an array of whole numbers"}, {[]bool{}, "an array of true or false"}, {[]struct{ A int }{}, "an array of objects"},
		{[][]string{}, "an array"}, {map[string]any{}, "an object"}, {new(string), "a string"}, {struct{}{}, "an object"},
	} {
		if got := Describe(reflect.TypeOf(c.v)); got != c.want {
			t.Errorf("%T: %q, want %q", c.v, got, c.want)
		}
	}
}
