package mcpserver_test

import (
	"context"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/engine/mcpserver"
)

// header is the opening of every tool's structured content.
type header struct {
	IsError   bool     `json:"isError"`
	Summary   string   `json:"summary"`
	ErrorText string   `json:"errorText"`
	ErrorCode string   `json:"errorCode"`
	ErrorLine int      `json:"errorLine"`
	Logs      []string `json:"logs"`
	ValueCut  *struct {
		Shown  int    `json:"shown"`
		Prefix string `json:"prefix"`
		Notice string `json:"notice"`
	} `json:"valueCut"`
}

func TestStructured_CarriesWhatTheTextSays(t *testing.T) {
	s, _ := newServer(t, mcpserver.Options{MaxResultChars: 50})
	c := connect(t, s)
	for _, tc := range []struct {
		name  string
		tool  string
		args  map[string]any
		check func(t *testing.T, text string, h header)
	}{
		{"a completed run", "workflow", map[string]any{"script": "export const meta = { name: 'sum', description: 'adds' }\nreturn 5"},
			func(t *testing.T, text string, h header) {
				if h.IsError || !strings.HasPrefix(h.Summary, `workflow "sum" completed`) || h.ErrorText != "" {
					t.Errorf("header %+v", h)
				}
			}},
		{"a script error, with its line and what to do", "workflow", map[string]any{"script": "export const meta = { name: 'bad', description: 'x' }\nconst n = 1\nreturn n.nope.deeper"},
			func(t *testing.T, text string, h header) {
				if !h.IsError || h.ErrorText != text || h.ErrorLine != 3 || h.ErrorCode == "" {
					t.Errorf("header %+v, want the whole text %q", h, text)
				}
				if !strings.Contains(h.ErrorText, "call workflow again") || !strings.Contains(h.ErrorText, "3 | return n.nope.deeper") {
					t.Errorf("errorText %q lacks the hint or the excerpt", h.ErrorText)
				}
			}},
		{"the last log lines", "workflow", map[string]any{"script": "export const meta = { name: 'logs', description: 'x' }\nlog('decided: take the short path')\nthrow new Error('then it broke')"},
			func(t *testing.T, text string, h header) {
				if !h.IsError || len(h.Logs) != 1 || h.Logs[0] != "decided: take the short path" || !strings.Contains(h.ErrorText, "decided: take the short path") {
					t.Errorf("header %+v", h)
				}
			}},
		{"a refused input", "workflow", map[string]any{"scirpt": "x"},
			func(t *testing.T, text string, h header) {
				if !h.IsError || !strings.Contains(h.ErrorText, `no field "scirpt"`) || h.Summary == "" {
					t.Errorf("header %+v", h)
				}
			}},
		{"a cut value keeps the shown part and the notice", "workflow", map[string]any{"script": "export const meta = { name: 'long', description: 'x' }\nreturn 'abc'.repeat(100)"},
			func(t *testing.T, text string, h header) {
				if h.IsError || h.ValueCut == nil {
					t.Fatalf("header %+v", h)
				}
				if len([]rune(h.ValueCut.Prefix)) != h.ValueCut.Shown || !strings.HasPrefix(h.ValueCut.Prefix, `"abcabc`) {
					t.Errorf("prefix %q, want the %d characters shown", h.ValueCut.Prefix, h.ValueCut.Shown)
				}
				if !strings.Contains(text, h.ValueCut.Prefix) || !strings.Contains(text, h.ValueCut.Notice) {
					t.Errorf("the text does not show the prefix and notice of the structured content")
				}
			}},
		{"a listing", "workflow_list", nil,
			func(t *testing.T, text string, h header) {
				if first, _, _ := strings.Cut(text, "\n"); h.IsError || h.Summary != first {
					t.Errorf("header %+v for %q", h, text)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := c.call(t, tc.tool, tc.args)
			var h header
			structured(t, res, &h)
			tc.check(t, text(res), h)
		})
	}
}

func TestStructured_EveryToolDeclaresItsOutputSchema(t *testing.T) {
	s, _ := newServer(t, mcpserver.Options{})
	c := connect(t, s)
	res, err := c.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		schema, ok := tl.OutputSchema.(map[string]any)
		if !ok || !strings.Contains(strings.Join(toStrings(schema["required"]), ","), "isError") {
			t.Errorf("%s: outputSchema %#v", tl.Name, tl.OutputSchema)
		}
	}
}

func toStrings(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}
