package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/engine"
)

func TestCheckPassesWithMetaAndWarningsAndRunsNothing(t *testing.T) {
	cases := []struct {
		name     string
		args     []string
		meta     string
		warnings int
	}{
		{"script meta", []string{"testdata/hello.js"}, "hello", 0},
		{"unknown meta field is a warning", []string{"testdata/extra-meta.js"}, "extra-meta", 1},
		{"meta from the flag", []string{"../../testdata/shared/research-synthesis.js", "--meta", `{"name":"rs","description":"d"}`}, "rs", 0},
		{"meta named after the file", []string{"../../testdata/shared/research-synthesis.js"}, "research-synthesis", 0},
		{"flags after the script", []string{"testdata/hello.js", "--provider", "fake", "--max-agents", "3"}, "hello", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := wfrun(t, append([]string{"check"}, tc.args...)...)
			o.wantCode(t, exitCompleted)
			var out struct {
				OK       bool            `json:"ok"`
				Meta     json.RawMessage `json:"meta"`
				Warnings []string        `json:"warnings"`
			}
			dec := json.NewDecoder(strings.NewReader(o.stdout))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&out); err != nil {
				t.Fatalf("stdout %s: %v", o.stdout, err)
			}
			var m struct{ Name string }
			_ = json.Unmarshal(out.Meta, &m)
			if !out.OK || m.Name != tc.meta || out.Warnings == nil || len(out.Warnings) != tc.warnings {
				t.Fatalf("check = %s, want ok with meta %q and %d warnings", o.stdout, tc.meta, tc.warnings)
			}
			if !strings.Contains(o.stdout, `"warnings": [`) {
				t.Errorf("warnings are not listed:\n%s", o.stdout)
			}
		})
	}
}

func TestCheckDoesNotExecuteTheScript(t *testing.T) {
	o := wfrun(t, "check", "testdata/throws.js")
	o.wantCode(t, exitCompleted)
	if strings.Contains(o.stderr, "no provider configured") {
		t.Errorf("check announced a provider: %q", o.stderr)
	}
}

func TestCheckFailsWithTheCodeAndThePosition(t *testing.T) {
	o := wfrun(t, "check", "../../testdata/shared/bad/typescript.js")
	o.wantCode(t, exitFailed)
	var cr engine.CheckResult
	if err := json.Unmarshal([]byte(o.stdout), &cr); err != nil {
		t.Fatal(err)
	}
	if cr.OK || cr.ErrorCode != engine.CodeScriptParse || cr.ErrorLine != 3 || cr.Error == "" {
		t.Fatalf("check = %s, want SCRIPT_PARSE on line 3", o.stdout)
	}
	if strings.Contains(o.stdout, `"meta"`) {
		t.Errorf("a failing check printed meta:\n%s", o.stdout)
	}
}

func TestCheckReportsMalformedFlagContentAsAFailedCheck(t *testing.T) {
	o := wfrun(t, "check", "testdata/hello.js", "--args", "{")
	o.wantCode(t, exitFailed)
	var cr engine.CheckResult
	if err := json.Unmarshal([]byte(o.stdout), &cr); err != nil || cr.OK || cr.ErrorCode != engine.CodeInvalidRequest {
		t.Fatalf("check = %s (%v)", o.stdout, err)
	}
}

func TestProvidersListsEveryProviderWithItsCapabilities(t *testing.T) {
	o := wfrun(t, "providers")
	o.wantCode(t, exitCompleted)
	var out struct {
		Default   string `json:"default"`
		Providers []struct {
			Name         string          `json:"name"`
			Capabilities map[string]bool `json:"capabilities"`
		} `json:"providers"`
	}
	if err := json.Unmarshal([]byte(o.stdout), &out); err != nil {
		t.Fatalf("%s: %v", o.stdout, err)
	}
	if out.Default != "fake" || len(out.Providers) != 1 || out.Providers[0].Name != "fake" || !out.Providers[0].Capabilities["outputSchema"] {
		t.Fatalf("providers = %s", o.stdout)
	}
	if o.stderr != "" {
		t.Errorf("stderr = %q", o.stderr)
	}
}
