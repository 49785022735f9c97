package setup_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/setup"
)

func TestFileMetaIsAValidMetaNamedAfterTheFile(t *testing.T) {
	cases := map[string]string{
		"research-synthesis.js":         "research-synthesis",
		"my script (v2).js":             "my-script-v2",
		"übersicht.js":                  "bersicht",
		"!!!.js":                        "workflow",
		"":                              "workflow",
		strings.Repeat("a", 80) + ".js": strings.Repeat("a", 64),
	}
	eng, err := engine.New(engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(t.Context())
	for file, want := range cases {
		raw := setup.FileMeta(file)
		var m struct{ Name, Description string }
		if err := json.Unmarshal(raw, &m); err != nil || m.Name != want || m.Description != file+" run from the command line" {
			t.Errorf("FileMeta(%q) = %s (%v), want name %q", file, raw, err, want)
		}
		if c := eng.Check(engine.WorkflowStartRequest{Script: "return 1", Parent: "p", FallbackMeta: raw}); !c.OK || !c.MetaFallback {
			t.Errorf("FileMeta(%q) as a fallback: check = %+v", file, c)
		}
	}
}
