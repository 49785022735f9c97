package meta

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse_AcceptsValidMeta(t *testing.T) {
	raw := `{"name":"audit.v2_x-1","description":"Audit files","whenToUse":"for audits","model":"m1",
		"phases":[{"title":"List"},{"title":"Audit","detail":"each file","model":"m2"}]}`
	got, warnings, err := Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings = %q, want none", warnings)
	}
	want := WorkflowMeta{
		Name: "audit.v2_x-1", Description: "Audit files", WhenToUse: "for audits", Model: "m1",
		Phases: []Phase{{Title: "List"}, {Title: "Audit", Detail: "each file", Model: "m2"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestParse_NullOptionalFieldIsAbsent(t *testing.T) {
	got, _, err := Parse([]byte(`{"name":"x","description":"d","model":null,"phases":null,"whenToUse":null}`))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, WorkflowMeta{Name: "x", Description: "d"}) {
		t.Errorf("got %+v", got)
	}
}

func TestParse_RejectsWithSentence(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want []string
	}{
		{"empty input", ``, []string{"meta is empty", `"name"`}},
		{"invalid JSON", `{"name":`, []string{"not valid JSON"}},
		{"trailing data", `{"name":"x","description":"d"} x`, []string{"not valid JSON"}},
		{"array root", `[1]`, []string{"meta must be an object", "not an array"}},
		{"null root", `null`, []string{"meta must be an object", "not null"}},
		{"missing name", `{"description":"d"}`, []string{"meta.name is missing", `"my-workflow"`}},
		{"null name", `{"name":null,"description":"d"}`, []string{"meta.name is missing"}},
		{"name not a string", `{"name":3,"description":"d"}`, []string{"meta.name must be a string", "not a number"}},
		{"empty name", `{"name":"","description":"d"}`, []string{"meta.name is empty"}},
		{"name too long", `{"name":"` + strings.Repeat("a", 65) + `","description":"d"}`, []string{"65 characters long", "at most 64"}},
		{"name with bad characters", `{"name":"my workflow/v2!","description":"d"}`,
			[]string{`' '`, `'/'`, `'!'`, `e.g. "my-workflow-v2"`}},
		{"name with non-ASCII letter", `{"name":"café","description":"d"}`, []string{`'é'`}},
		{"model too long", `{"name":"x","description":"d","model":"` + strings.Repeat("m", 1025) + `"}`, []string{"meta.model is 1025 bytes long", "1 KiB"}},
		{"phase model too long", `{"name":"x","description":"d","phases":[{"title":"P","model":"` + strings.Repeat("m", 1025) + `"}]}`, []string{"meta.phases[0].model is 1025 bytes long"}},
		{"phase title too long", `{"name":"x","description":"d","phases":[{"title":"` + strings.Repeat("t", 2000) + `"}]}`, []string{"meta.phases[0].title is 2000 bytes long"}},
		{"missing description", `{"name":"x"}`, []string{"meta.description is missing"}},
		{"blank description", `{"name":"x","description":"  \n\t"}`, []string{"meta.description is blank"}},
		{"description not a string", `{"name":"x","description":["a","b"]}`, []string{"meta.description must be a string", "not an array"}},
		{"whenToUse not a string", `{"name":"x","description":"d","whenToUse":1}`, []string{"meta.whenToUse must be a string"}},
		{"empty model", `{"name":"x","description":"d","model":""}`, []string{"meta.model is blank"}},
		{"phases not an array", `{"name":"x","description":"d","phases":{"title":"a"}}`, []string{"meta.phases must be an array", "not an object"}},
		{"phase not an object", `{"name":"x","description":"d","phases":["Plan"]}`, []string{"meta.phases[0] must be an object", "not a string"}},
		{"phase without title", `{"name":"x","description":"d","phases":[{"detail":"x"}]}`, []string{"meta.phases[0].title is missing"}},
		{"phase title empty", `{"name":"x","description":"d","phases":[{"title":"ok"},{"title":" "}]}`, []string{"meta.phases[1].title is blank"}},
		{"phase title not a string", `{"name":"x","description":"d","phases":[{"title":1}]}`, []string{"meta.phases[0].title must be a string"}},
		{"phase detail not a string", `{"name":"x","description":"d","phases":[{"title":"a","detail":false}]}`, []string{"meta.phases[0].detail must be a string", "not a boolean"}},
		{"duplicate key", `{"name":"x","name":"y","description":"d"}`, []string{`meta has the key "name" more than once`}},
		{"duplicate key in phase", `{"name":"x","description":"d","phases":[{"title":"a","title":"b"}]}`, []string{`meta.phases[0] has the key "title" more than once`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := Parse([]byte(tt.raw))
			e := metaError(t, err)
			if !reflect.DeepEqual(got, WorkflowMeta{}) {
				t.Errorf("meta = %+v on error, want the zero value", got)
			}
			if e.Line != 0 {
				t.Errorf("JSON meta has no position, got line %d", e.Line)
			}
			for _, w := range tt.want {
				if !strings.Contains(e.Message, w) {
					t.Errorf("message lacks %q: %s", w, e.Message)
				}
			}
		})
	}
}

func TestParse_ReportsEveryViolation(t *testing.T) {
	raw := `{"name":"bad name","description":"","model":7,"phases":[{"title":""},"x",{"detail":"d"}]}`
	_, _, err := Parse([]byte(raw))
	e := metaError(t, err)
	for _, w := range []string{
		"6 problems",
		"meta.name", "meta.description is blank", "meta.model must be a string",
		"meta.phases[0].title is blank", "meta.phases[1] must be an object", "meta.phases[2].title is missing",
	} {
		if !strings.Contains(e.Message, w) {
			t.Errorf("message lacks %q: %s", w, e.Message)
		}
	}
}

func TestParse_UnknownFieldIsWarning(t *testing.T) {
	raw := `{"zeta":1,"name":"x","author":"me","description":"d",
		"phases":[{"title":"a","owner":"b"},{"title":"c","agent":{},"weight":2}],"version":2}`
	m, warnings, err := Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "x" {
		t.Errorf("meta = %+v", m)
	}
	want := []string{
		`unknown meta field "zeta" is ignored`,
		`unknown meta field "author" is ignored`,
		`unknown meta field "version" is ignored`,
		`unknown field "owner" in meta.phases[0] is ignored`,
		`unknown field "agent" in meta.phases[1] is ignored`,
		`unknown field "weight" in meta.phases[1] is ignored`,
	}
	if !reflect.DeepEqual(warnings, want) {
		t.Errorf("warnings =\n%q\nwant\n%q", warnings, want)
	}
}

func TestParse_WarningsComeWithViolations(t *testing.T) {
	_, warnings, err := Parse([]byte(`{"author":"me"}`))
	metaError(t, err)
	if len(warnings) != 1 || !strings.Contains(warnings[0], `"author"`) {
		t.Errorf("warnings = %q", warnings)
	}
}
