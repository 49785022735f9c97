package minimal

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wfrun/wfrun/agentapi/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// Schemas of the scripts in testdata/shared, as they write them (in JSON).
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

func TestValuesMatchGolden(t *testing.T) {
	var got strings.Builder
	for _, c := range minimalCases {
		s, err := schema.Compile(json.RawMessage(c.schema))
		if err != nil {
			t.Fatalf("%s: Compile: %v", c.name, err)
		}
		m, err := Value(s)
		if err != nil {
			t.Fatalf("%s: Value: %v", c.name, err)
		}
		if err := s.Validate(m); err != nil {
			t.Errorf("%s: Value %s does not validate: %v", c.name, m, err)
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

func TestValueIsDeterministicAndACopy(t *testing.T) {
	s := mustCompile(t, handoff)
	a, _ := Value(s)
	a[0] = 'X'
	b, _ := Value(s)
	if string(b) != `{"status":"continue","summary":""}` {
		t.Errorf("second Value = %s; the first caller's change leaked or the value changed", b)
	}
}

func TestValueRefusesUnsatisfiableSchemas(t *testing.T) {
	for name, schema := range map[string]string{
		"not anything":            `{"type":"object","properties":{"a":{"not":{}}},"required":["a"]}`,
		"false property":          `{"type":"object","properties":{"a":false},"required":["a"]}`,
		"required recursion":      `{"type":"object","properties":{"n":{"$ref":"#"}},"required":["n"]}`,
		"contradicting pattern":   `{"type":"object","properties":{"a":{"type":"string","pattern":"^a$","minLength":2}},"required":["a"]}`,
		"empty enum intersection": `{"type":"object","properties":{"a":{"allOf":[{"enum":[1]},{"enum":[2]}]}},"required":["a"]}`,
	} {
		t.Run(name, func(t *testing.T) {
			s := mustCompile(t, schema)
			m, err := Value(s)
			if err == nil {
				t.Fatalf("Value = %s, want an error", m)
			}
			if !strings.Contains(err.Error(), "example") {
				t.Errorf("error %q does not say what to do (give an example)", err)
			}
		})
	}
}

// Hostile schemas, as a fuzzer or a careless author writes them: each must
// end with an error, not search for hours or build gigabytes.
func hostileSchemas() []struct{ name, schema, want string } {
	bigArray := `{"type":"array","minItems":9000,"items":{"type":"string","minLength":100}}`
	var doubling strings.Builder // x0 = allOf[x1, x1], x1 = allOf[x2, x2], …: 2^25 merges
	for i := range 25 {
		fmt.Fprintf(&doubling, `"x%d":{"allOf":[{"$ref":"#/$defs/x%d"},{"$ref":"#/$defs/x%d"}]},`, i, i+1, i+1)
	}
	return []struct{ name, schema, want string }{
		{"alternatives that multiply through a recursive $ref",
			`{"properties":{"a":{"$ref":"#/$defs/x"}},"required":["a"],"$defs":{"x":{"anyOf":[` +
				`{"properties":{"b":{"$ref":"#/$defs/x"}},"required":["b"]},` +
				`{"properties":{"c":{"$ref":"#/$defs/x"}},"required":["c"]},` +
				`{"properties":{"d":{"$ref":"#/$defs/x"}},"required":["d"]}]}}}`,
			"multiply past the search wfrun makes, so it gave up; simplify them"},
		{"allOfs that double through $refs",
			`{"properties":{"a":{"$ref":"#/$defs/x0"}},"required":["a"],"$defs":{` + doubling.String() + `"x25":{"type":"string"}}}`,
			"multiply past the search wfrun makes, so it gave up; simplify them"},
		{"two required properties that recurse to the root", // found by FuzzValueOfBuiltSchema
			`{"additionalProperties":{"$ref":"#"},"examples":[{"a":"x"}],"required":["c","a"]}`,
			"multiply past the search wfrun makes, so it gave up; simplify them"},
		{"many properties, each large", `{"minProperties":50,"additionalProperties":` + bigArray + `}`,
			"the object's properties would exceed 1048576 bytes"},
		{"a tuple of large items", `{"properties":{"t":{"prefixItems":[` + bigArray + `,` + bigArray + `],"minItems":2}},"required":["t"]}`,
			"the array's first 2 items would exceed 1048576 bytes"},
		{"copies of a large item", `{"properties":{"t":{"minItems":9000,"items":` + bigArray + `}},"required":["t"]}`,
			"9000 copies of the items' minimal value would exceed 1048576 bytes"},
	}
}

func TestValueEndsHostileSchemasWithAnError(t *testing.T) {
	for _, c := range hostileSchemas() {
		t.Run(c.name, func(t *testing.T) {
			m, err := Value(mustCompile(t, c.schema))
			if err == nil {
				t.Fatalf("Value built %d bytes, want an error", len(m))
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q\ndoes not say %q", err, c.want)
			}
			if !strings.Contains(err.Error(), "example") && !strings.Contains(err.Error(), "simplify") {
				t.Errorf("error %q does not say what to do (give an example, or simplify)", err)
			}
		})
	}
}

func TestValueIsSafeForConcurrentUseOfOneSchema(t *testing.T) {
	s := mustCompile(t, minimalCases[len(minimalCases)-6].schema)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				m, err := Value(s)
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

func mustCompile(t testing.TB, text string) *schema.Schema {
	t.Helper()
	s, err := schema.Compile(json.RawMessage(text))
	if err != nil {
		t.Fatalf("Compile(%s): %v", text, err)
	}
	return s
}
