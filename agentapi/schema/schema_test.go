package schema

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schemas of the scripts in testdata/shared, as they write them (in JSON).
const (
	findings = `{"type":"object","properties":{"findings":{"type":"array","items":{"type":"object","properties":{"title":{"type":"string"},"line":{"type":"integer"},"severity":{"type":"string","enum":["low","medium","high"]}},"required":["title","severity"]}}},"required":["findings"]}`
	verdict  = `{"type":"object","properties":{"real":{"type":"boolean"},"why":{"type":"string"}},"required":["real"]}`
)

func TestValidateExplainsEachFailingLocation(t *testing.T) {
	cases := []struct {
		name, schema, value, want string
	}{
		{"valid value", findings, `{"findings":[{"title":"t","severity":"low"}]}`, ""},
		{"enum at a nested location", findings, `{"findings":[{"title":"t","severity":"urgent"}]}`,
			`the value does not match the schema: /findings/0/severity: value must be one of 'low', 'medium', 'high'`},
		{"missing required property at the root", verdict, `{"why":"x"}`,
			`the value does not match the schema: (root): missing property 'real'`},
		{"several problems", findings, `{"findings":[{"line":"x"}]}`,
			`the value does not match the schema: /findings/0: missing properties 'title', 'severity'; /findings/0/line: got string, want integer`},
		{"wrong root type", verdict, `[1]`, `the value does not match the schema: (root): got array, want object`},
		{"format is asserted", `{"type":"object","properties":{"d":{"type":"string","format":"date"}}}`, `{"d":"yesterday"}`,
			`the value does not match the schema: /d: 'yesterday' is not valid date: parsing time "yesterday" as "2006-01-02": cannot parse "yesterday" as "2006"`},
		{"invalid JSON", verdict, `{"real":`, `the value is not valid JSON (unexpected EOF)`},
		{"trailing data", verdict, `{"real":true} x`, `the value is not valid JSON (invalid character after top-level value)`},
		{"pointer tokens are escaped", `{"type":"object","properties":{"a/b":{"type":"string"}}}`, `{"a/b":1}`,
			`the value does not match the schema: /a~1b: got number, want string`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := mustCompile(t, c.schema).Validate(json.RawMessage(c.value))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != c.want {
				t.Errorf("Validate(%s)\n got: %s\nwant: %s", c.value, got, c.want)
			}
		})
	}
}

func TestValidateCapsLongExplanations(t *testing.T) {
	var props []string
	var value []string
	for i := range 40 {
		name := strings.Repeat("p", 20) + string(rune('a'+i%26)) + string(rune('a'+i/26))
		props = append(props, `"`+name+`":{"type":"string"}`)
		value = append(value, `"`+name+`":1`)
	}
	s := mustCompile(t, `{"type":"object","properties":{`+strings.Join(props, ",")+`}}`)
	err := s.Validate(json.RawMessage(`{` + strings.Join(value, ",") + `}`))
	if err == nil {
		t.Fatal("Validate accepted 40 wrong properties")
	}
	if len(err.Error()) > maxMessageSize+120 || !strings.HasSuffix(err.Error(), "more") {
		t.Errorf("explanation not capped (%d bytes): %s", len(err.Error()), err)
	}
}

func TestCompileRefusesSchemasThatCannotDescribeAnAnswer(t *testing.T) {
	cases := []struct{ name, schema, want string }{
		{"empty text", ``, "the schema is empty"},
		{"not JSON", `{type:'object'}`, "the schema is not valid JSON"},
		{"boolean schema true", `true`, "boolean schema"},
		{"boolean schema false", `false`, "boolean schema"},
		{"array text", `[{"type":"object"}]`, "must be a JSON object, not an array"},
		{"array root", `{"type":"array","items":{"type":"string"}}`,
			"the schema's root must be an object: wrap the array in a property, e.g. {type:'object', properties:{items:{type:'array', …}}, required:['items']}"},
		{"string root", `{"type":"string"}`, `the schema's root must be an object, not "string"`},
		{"object-or-null root", `{"type":["object","null"]}`, "its type is [object, null]"},
		{"remote $ref", `{"type":"object","properties":{"a":{"$ref":"https://example.com/a.json"}}}`,
			`refers to "https://example.com/a.json", which is outside it`},
		{"relative file $ref", `{"type":"object","properties":{"a":{"$ref":"defs.json#/A"}}}`, `refers to "defs.json"`},
		{"unknown $schema URL", `{"$schema":"https://example.com/meta","type":"object"}`, "refers to"},
		{"invalid keyword value", `{"type":"object","properties":{"a":{"type":"strng"}}}`, "not a valid JSON Schema (/properties/a/type"},
		{"negative minLength", `{"type":"object","properties":{"a":{"minLength":-1}}}`, "/properties/a/minLength"},
		{"lookahead pattern", `{"type":"object","properties":{"a":{"pattern":"(?=x)"}}}`, "RE2"},
		{"dangling local $ref", `{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}`, "does not exist"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Compile(json.RawMessage(c.schema))
			if err == nil {
				t.Fatalf("Compile accepted %s", s.Raw())
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q\ndoes not contain %q", err, c.want)
			}
			if strings.Contains(err.Error(), "wfrun.invalid") {
				t.Errorf("error %q leaks the internal base URL", err)
			}
		})
	}
}

func TestCompileAcceptsObjectRoots(t *testing.T) {
	for _, schema := range []string{
		`{}`, `{"type":"object"}`, `{"type":["object"]}`, findings,
		`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`,
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`,
		`{"$ref":"https://json-schema.org/draft/2020-12/schema"}`, // built-in meta-schema, no network
	} {
		s := mustCompile(t, schema)
		if string(s.Raw()) != schema {
			t.Errorf("Raw() = %s, want %s", s.Raw(), schema)
		}
	}
}

func TestSchemaIsSafeForConcurrentUse(t *testing.T) {
	s := mustCompile(t, findings)
	good := json.RawMessage(`{"findings":[{"title":"t","severity":"low"}]}`)
	bad := json.RawMessage(`{"findings":[{"severity":"urgent"}]}`)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				if err := s.Validate(good); err != nil {
					t.Error(err)
				}
				if s.Validate(bad) == nil {
					t.Error("Validate accepted a finding without a title")
				}
			}
		})
	}
	wg.Wait()
}

func TestNewCompilerCompilesPartsAsCompileDoes(t *testing.T) {
	text := `{"type":"object","properties":{"a/b":{"$ref":"#/$defs/day"}},"$defs":{"day":{"type":"string","format":"date"}}}`
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCompiler(doc)
	if err != nil {
		t.Fatal(err)
	}
	part, err := c.Compile(DocumentURL + "#/properties/a~1b")
	if err != nil {
		t.Fatalf("the part at /properties/a~1b does not compile: %v", err)
	}
	if err := part.Validate("1970-01-01"); err != nil {
		t.Errorf("the part refused a date: %v", err)
	}
	if part.Validate("yesterday") == nil {
		t.Error("the part accepted a string that is not a date: formats are not asserted")
	}
	remote, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"$ref":"https://example.com/a.json"}`))
	if err != nil {
		t.Fatal(err)
	}
	c, err = NewCompiler(remote)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Compile(DocumentURL); err == nil {
		t.Error("a compiler from NewCompiler loaded a schema from outside the document")
	}
}

func mustCompile(t testing.TB, schema string) *Schema {
	t.Helper()
	s, err := Compile(json.RawMessage(schema))
	if err != nil {
		t.Fatalf("Compile(%s): %v", schema, err)
	}
	return s
}
