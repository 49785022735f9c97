package meta

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMerge_AbsentAndPresent(t *testing.T) {
	m := json.RawMessage(`{"name":"x","description":"d"}`)
	tests := []struct {
		name        string
		req, script json.RawMessage
		want        json.RawMessage
	}{
		{"both absent", nil, nil, nil},
		{"both empty or null", json.RawMessage(" "), json.RawMessage("null"), nil},
		{"only request", m, nil, m},
		{"only script", nil, m, m},
		{"request null, script present", json.RawMessage("null"), m, m},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Merge(tt.req, tt.script)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(tt.want) {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestMerge_BothPresentEqualIgnoresKeyOrderAndNumberForm(t *testing.T) {
	req := json.RawMessage(`{"description":"d","name":"x","n":1.0,"phases":[{"title":"a","k":100}]}`)
	script := json.RawMessage(`{"name":"x","description":"d","n":1,"phases":[{"k":1e2,"title":"a"}]}`)
	got, err := Merge(req, script)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(script) {
		t.Errorf("got %s, want the script's meta", got)
	}
}

func TestMerge_BothPresentUnequalNamesFields(t *testing.T) {
	req := json.RawMessage(`{"name":"x","description":"one","phases":[{"title":"a"}],"extra":1}`)
	script := json.RawMessage(`{"name":"x","description":"two","phases":[{"title":"b"}],"model":"m"}`)
	_, err := Merge(req, script)
	e := metaError(t, err)
	want := `meta in the request and in the script differ in "description", "phases", "extra", "model"; pass meta in one place only, or make them equal`
	if e.Message != want {
		t.Errorf("message =\n%s\nwant\n%s", e.Message, want)
	}
}

func TestMerge_ArrayOrderMatters(t *testing.T) {
	_, err := Merge(json.RawMessage(`{"phases":[{"title":"a"},{"title":"b"}]}`), json.RawMessage(`{"phases":[{"title":"b"},{"title":"a"}]}`))
	e := metaError(t, err)
	if !strings.Contains(e.Message, `"phases"`) {
		t.Errorf("message = %s", e.Message)
	}
}

func TestMerge_RejectsInvalidJSONAndNonObjects(t *testing.T) {
	tests := []struct {
		name        string
		req, script string
		want        string
	}{
		{"invalid request", `{`, `{"name":"x"}`, "meta in the request is not valid JSON"},
		{"invalid script", `{"name":"x"}`, `{,}`, "meta in the script is not valid JSON"},
		{"non-object", `"x"`, `{"name":"x"}`, "in the request (a string) and in the script (an object) differ"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Merge(json.RawMessage(tt.req), json.RawMessage(tt.script))
			e := metaError(t, err)
			if !strings.Contains(e.Message, tt.want) {
				t.Errorf("message lacks %q: %s", tt.want, e.Message)
			}
		})
	}
}
