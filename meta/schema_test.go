package meta

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

const schemaGolden = "testdata/schema.golden.json"

func TestSchema_MatchesGolden(t *testing.T) {
	got := Schema()
	if *update {
		if err := os.WriteFile(schemaGolden, append(bytes.Clone(got), '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(schemaGolden)
	if err != nil {
		t.Fatalf("%v (run go test ./meta/ -run TestSchema_MatchesGolden -update to create it)", err)
	}
	if !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(want)) {
		t.Errorf("Schema() differs from %s; if the change is intended, rerun with -update\ngot:\n%s", schemaGolden, got)
	}
}

func TestSchema_IsDraft2020AndAllowsUnknownFields(t *testing.T) {
	var s struct {
		Schema               string         `json:"$schema"`
		Required             []string       `json:"required"`
		AdditionalProperties any            `json:"additionalProperties"`
		Properties           map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(Schema(), &s); err != nil {
		t.Fatal(err)
	}
	if s.Schema != "https://json-schema.org/draft/2020-12/schema" {
		t.Errorf("$schema = %q", s.Schema)
	}
	if s.AdditionalProperties == false {
		t.Error("additionalProperties is false; unknown fields must be allowed (they are warnings)")
	}
	if len(s.Required) != 2 || s.Required[0] != "name" || s.Required[1] != "description" {
		t.Errorf("required = %q", s.Required)
	}
	for _, k := range []string{"name", "description", "whenToUse", "model", "phases"} {
		p, ok := s.Properties[k].(map[string]any)
		if !ok || p["description"] == "" || p["description"] == nil {
			t.Errorf("property %q missing or without description", k)
		}
	}
}

func TestSchema_ReturnsACopy(t *testing.T) {
	a := Schema()
	a[0] = 'X'
	if b := Schema(); b[0] != '{' {
		t.Error("changing one Schema() result changed the next")
	}
}

// The schema is for tools that produce meta as data; what it accepts, Parse
// must accept, and the reverse (null for an optional field aside, which
// Parse reads as absent).
func TestSchema_AgreesWithParse(t *testing.T) {
	c := jsonschema.NewCompiler()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("meta.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("meta.json")
	if err != nil {
		t.Fatalf("schema does not compile: %v", err)
	}
	for _, raw := range []string{
		`{"name":"x","description":"d"}`,
		`{"name":"a.b_c-1","description":"d","whenToUse":"","model":"m","phases":[{"title":"t","detail":"","model":"m"}],"extra":1}`,
		`{"name":"x","description":"d","phases":[{"title":"t","other":true}]}`,
		`{"name":"","description":"d"}`,
		`{"name":"a b","description":"d"}`,
		`{"name":"` + strings.Repeat("n", 65) + `","description":"d"}`,
		`{"name":"x","description":"   "}`,
		`{"name":"x"}`,
		`{"description":"d"}`,
		`{"name":"x","description":"d","model":""}`,
		`{"name":"x","description":"d","phases":[{}]}`,
		`{"name":"x","description":"d","phases":[{"title":""}]}`,
		`{"name":"x","description":"d","phases":"Plan"}`,
		`{"name":"x","description":"d","whenToUse":3}`,
		`[]`,
	} {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		schemaOK := sch.Validate(inst) == nil
		_, _, parseErr := Parse([]byte(raw))
		if schemaOK != (parseErr == nil) {
			t.Errorf("%s: schema valid = %v, Parse error = %v", raw, schemaOK, parseErr)
		}
	}
}
