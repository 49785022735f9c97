//go:build linux

package escapes

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The catalogue's own format checks: a case file with a typo must fail the
// test rather than quietly test less.
func TestACaseFileThatSaysLessThanItMeansIsRefused(t *testing.T) {
	const child = "children:\n  - calls:\n      - tool: Bash\n        arguments: {command: true}\n"
	tests := []struct {
		name, yaml, want string
	}{
		{"a misspelt field", "name: x\nattacks: a\n" + child + "expect:\n  absnt: [a]\n", "absnt"},
		{"a name that is not the file's", "name: y\nattacks: a\n" + child, `must be the file's name`},
		{"no attacks sentence", "name: x\n" + child, "say in attacks"},
		{"no child", "name: x\nattacks: a\n", "at least one child"},
		{"an unknown mode", "name: x\nattacks: a\nmodes: [read-write]\n" + child, `unknown mode "read-write"`},
		{"pending in a mode the case does not run in", "name: x\nattacks: a\nmodes: [read-only]\npending: p\npending_in: [workspace-write]\n" + child, "not one of the case's modes"},
		{"pending_in without pending", "name: x\nattacks: a\npending_in: [read-only]\n" + child, "say what fixes the case"},
		{"an unknown tool", "name: x\nattacks: a\nchildren:\n  - calls:\n      - tool: Shell\n", `unknown tool "Shell"`},
		{"a turn that is one call and parallel ones", "name: x\nattacks: a\nchildren:\n  - calls:\n      - tool: Bash\n        parallel: [{tool: Read}]\n", "not both"},
		{"an unknown tool among parallel calls", "name: x\nattacks: a\nchildren:\n  - calls:\n      - parallel: [{tool: Read}, {tool: Shell}]\n", `unknown tool "Shell"`},
		{"an unknown isolation", "name: x\nattacks: a\nchildren:\n  - isolation: process\n", `isolation "process"`},
		{"a duration without a unit", "name: x\nattacks: a\nagent_timeout: 3\n" + child, "not a duration"},
		{"resume without what it must lack", "name: x\nattacks: a\n" + child + "expect:\n  resume: {}\n", "resume needs lacks"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.yaml")
			if err := os.WriteFile(path, []byte(tt.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := loadCase(path)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("loadCase: %v, want an error saying %q", err, tt.want)
			}
		})
	}
}

func TestACaseWithoutModesRunsInTheFourSandboxedModes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.yaml")
	if err := os.WriteFile(path, []byte("name: x\nattacks: a\npending: p\nchildren:\n  - {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := loadCase(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Modes, " ") != strings.Join(allModes, " ") {
		t.Fatalf("modes %v, want %v", c.Modes, allModes)
	}
	for _, m := range allModes {
		if !c.pendingIn(m) {
			t.Errorf("pending without pending_in does not cover %s", m)
		}
	}
}
