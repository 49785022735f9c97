package schema

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// Schemas from /work/shared/scripts, as the scripts write them (in JSON).
const (
	findings = `{"type":"object","properties":{"findings":{"type":"array","items":{"type":"object","properties":{"title":{"type":"string"},"line":{"type":"integer"},"severity":{"type":"string","enum":["low","medium","high"]}},"required":["title","severity"]}}},"required":["findings"]}`
	verdict  = `{"type":"object","properties":{"real":{"type":"boolean"},"why":{"type":"string"}},"required":["real"]}`
	handoff  = `{"type":"object","properties":{"status":{"type":"string","enum":["continue","complete","blocked"]},"summary":{"type":"string"},"evidence":{"type":"array","items":{"type":"string"}},"nextSteps":{"type":"array","items":{"type":"string"}},"blocker":{"type":"string"}},"required":["status","summary"]}`
	ruling   = `{"type":"object","properties":{"approve":{"type":"boolean"},"confidence":{"type":"number"},"reason":{"type":"string"}},"required":["approve","reason"]}`
	found    = `{"type":"object","properties":{"cases":{"type":"array","items":{"type":"string"}}},"required":["cases"]}`
)

// minimalCases are the schemas whose minimal values are in
// testdata/minimal.golden, one "name: value" line each.
var minimalCases = []struct{ name, schema string }{
	{"script audit-pipeline FINDINGS", findings},
	{"script audit-pipeline VERDICT", verdict},
	{"script handoff-rounds HANDOFF", handoff},
	{"script judge-panel RULING", ruling},
	{"script loop-until-dry FOUND", found},
	{"empty object schema", `{}`},
	{"keys follow properties order, not required order", `{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer"},"m":{"type":"boolean"}},"required":["m","z","a"]}`},
	{"required property without a schema", `{"type":"object","required":["x"]}`},
	{"const and enum", `{"type":"object","properties":{"k":{"const":"fixed"},"e":{"enum":[3,"x"]}},"required":["k","e"]}`},
	{"string minLength", `{"type":"object","properties":{"s":{"type":"string","minLength":3}},"required":["s"]}`},
	{"string formats", `{"type":"object","properties":{"dt":{"type":"string","format":"date-time"},"d":{"type":"string","format":"date"},"e":{"type":"string","format":"email"},"u":{"type":"string","format":"uri"},"id":{"type":"string","format":"uuid"}},"required":["dt","d","e","u","id"]}`},
	{"string pattern", `{"type":"object","properties":{"code":{"type":"string","pattern":"^[A-Z]{3}-\\d{2,}$"},"word":{"type":"string","pattern":"^[a-z]+$","minLength":4}},"required":["code","word"]}`},
	{"number bounds", `{"type":"object","properties":{"min":{"type":"number","minimum":2.5},"exmin":{"type":"integer","exclusiveMinimum":5},"mult":{"type":"integer","minimum":1,"multipleOf":4},"neg":{"type":"number","maximum":-3},"exneg":{"type":"integer","exclusiveMaximum":-3},"frac":{"type":"number","exclusiveMinimum":0,"maximum":0.5},"zero":{"type":"number","minimum":-5}},"required":["min","exmin","mult","neg","exneg","frac","zero"]}`},
	{"arrays: minItems copies and tuples", `{"type":"object","properties":{"two":{"type":"array","minItems":2,"items":{"type":"integer","minimum":7}},"tuple":{"type":"array","prefixItems":[{"type":"string"},{"type":"boolean"}],"minItems":2},"has":{"type":"array","contains":{"const":"x"}}},"required":["two","tuple","has"]}`},
	{"null, boolean and type arrays", `{"type":"object","properties":{"n":{"type":"null"},"b":{"type":"boolean"},"t":{"type":["integer","string"]}},"required":["n","b","t"]}`},
	{"oneOf takes the first branch that works", `{"type":"object","properties":{"v":{"oneOf":[{"type":"object"},{"type":"object","properties":{"x":{"const":1}},"required":["x"]}]},"w":{"anyOf":[{"type":"string","minLength":2},{"type":"null"}]}},"required":["v","w"]}`},
	{"oneOf branch matching twice falls to the next", `{"type":"object","properties":{"v":{"oneOf":[{"type":"string"},{"type":"string","maxLength":3},{"type":"integer"}]}},"required":["v"]}`},
	{"allOf merges", `{"type":"object","allOf":[{"properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"integer","minimum":3},"a":{"minLength":2}},"required":["b"]}]}`},
	{"$ref to $defs with depth guard on optional recursion", `{"type":"object","properties":{"tree":{"$ref":"#/$defs/node"}},"required":["tree"],"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["name","children"]}}}`},
	{"draft-07 definitions", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"p":{"$ref":"#/definitions/P"}},"required":["p"],"definitions":{"P":{"type":"object","properties":{"n":{"type":"number","exclusiveMinimum":1}},"required":["n"]}}}`},
	{"draft-04 boolean exclusiveMinimum", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"type":"integer","minimum":0,"exclusiveMinimum":true}},"required":["n"]}`},
	{"examples rescue an unsatisfiable guess", `{"type":"object","properties":{"v":{"type":"string","pattern":"^x","not":{"const":"x"},"examples":["xy"]}},"required":["v"]}`},
	{"minProperties adds optional properties", `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"minProperties":1}`},
	{"unicode and html characters survive", `{"type":"object","properties":{"<é>":{"const":"a&b"}},"required":["<é>"]}`},
}

func TestMinimalValuesMatchGolden(t *testing.T) {
	var got strings.Builder
	for _, c := range minimalCases {
		s, err := Compile(json.RawMessage(c.schema))
		if err != nil {
			t.Fatalf("%s: Compile: %v", c.name, err)
		}
		m, err := s.Minimal()
		if err != nil {
			t.Fatalf("%s: Minimal: %v", c.name, err)
		}
		if err := s.Validate(m); err != nil {
			t.Errorf("%s: Minimal %s does not validate: %v", c.name, m, err)
		}
		got.WriteString(c.name + ": " + string(m) + "\n")
	}
	golden := filepath.Join("testdata", "minimal.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got.String() != string(want) {
		t.Errorf("minimal values differ from %s (run go test -update after checking):\n got:\n%s\nwant:\n%s", golden, got.String(), want)
	}
}

func TestMinimalIsDeterministicAndACopy(t *testing.T) {
	s := mustCompile(t, handoff)
	a, _ := s.Minimal()
	a[0] = 'X'
	b, _ := s.Minimal()
	if string(b) != `{"status":"continue","summary":""}` {
		t.Errorf("second Minimal = %s; the first caller's change leaked or the value changed", b)
	}
}

func TestMinimalRefusesUnsatisfiableSchemas(t *testing.T) {
	for name, schema := range map[string]string{
		"not anything":            `{"type":"object","properties":{"a":{"not":{}}},"required":["a"]}`,
		"false property":          `{"type":"object","properties":{"a":false},"required":["a"]}`,
		"required recursion":      `{"type":"object","properties":{"n":{"$ref":"#"}},"required":["n"]}`,
		"contradicting pattern":   `{"type":"object","properties":{"a":{"type":"string","pattern":"^a$","minLength":2}},"required":["a"]}`,
		"empty enum intersection": `{"type":"object","properties":{"a":{"allOf":[{"enum":[1]},{"enum":[2]}]}},"required":["a"]}`,
	} {
		t.Run(name, func(t *testing.T) {
			s := mustCompile(t, schema)
			m, err := s.Minimal()
			if err == nil {
				t.Fatalf("Minimal = %s, want an error", m)
			}
			if !strings.Contains(err.Error(), "example") {
				t.Errorf("error %q does not say what to do (give an example)", err)
			}
		})
	}
}

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
	s := mustCompile(t, minimalCases[len(minimalCases)-6].schema)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				m, err := s.Minimal()
				if err != nil {
					t.Error(err)
					return
				}
				if err := s.Validate(m); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
}

func mustCompile(t testing.TB, schema string) *Schema {
	t.Helper()
	s, err := Compile(json.RawMessage(schema))
	if err != nil {
		t.Fatalf("Compile(%s): %v", schema, err)
	}
	return s
}
