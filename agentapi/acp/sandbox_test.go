package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/agentapi/workspace"
)

// An agent started with "sandbox": true runs in the child's sandbox: its
// own process writes in the workspace and nowhere else. Without it the
// agent has wfrun's rights, and only its requests are bounded.
func TestASandboxedAgentsOwnProcessStaysInTheWorkspace(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sandbox bool
		outside string // the agent's own write outside: ok or error
	}{
		{"sandboxed", true, "error"},
		{"not sandboxed", false, "ok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A sandboxed command sees a private /tmp of its own, so the
			// agent is copied where the host's files stay visible.
			f := newFixture(t, workspace.WorkspaceWrite, false, Agent{Command: visibleCopy(t, testAgent), Sandbox: tc.sandbox})
			if err := f.ws.CheckSandbox(); err != nil && tc.sandbox {
				t.Skipf("the sandbox cannot run here: %v", err)
			}
			outside := filepath.Join(t.TempDir(), "escaped")
			res := f.complete(t, "@touch "+outside+"\n@touch "+f.path("inside")+"\n@report")
			want := []string{"touch " + outside + ": " + tc.outside, "touch " + f.path("inside") + ": ok"}
			for _, w := range want {
				if !strings.Contains(res.Text, w) {
					t.Errorf("the agent reported %q, want %q", res.Text, w)
				}
			}
			if _, err := os.Stat(outside); (err == nil) != (tc.outside == "ok") {
				t.Errorf("the outside file exists: %v, want %v", err == nil, tc.outside == "ok")
			}
		})
	}
}

func TestTheSandboxFieldIsReadFromTheConfig(t *testing.T) {
	f, err := Parse([]byte(`{"agents": {"g": {"command": "gemini", "sandbox": true}}}`))
	if err != nil || !f.Agents["g"].Sandbox {
		t.Fatalf("Parse = %+v, %v", f, err)
	}
}

// visibleCopy copies the program at path into a folder under /var/tmp,
// removed when t ends, and returns the copy's path.
func visibleCopy(t *testing.T, path string) string {
	t.Helper()
	dir, err := os.MkdirTemp("/var/tmp", "wfrun-acp-agent-")
	if err != nil {
		t.Skipf("no folder outside /tmp for the agent: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(dir, filepath.Base(path))
	if err := os.WriteFile(cp, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return cp
}
