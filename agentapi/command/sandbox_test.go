package command

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/workspace"
)

// A spec with "sandbox": true runs the agent's command in the workspace's
// sandbox: a PID namespace of its own, no writes outside the workspace,
// and the workspace as its folder.
func TestASandboxedCommandStaysInItsWorkspace(t *testing.T) {
	dir := t.TempDir()
	ws, outside := filepath.Join(dir, "ws"), filepath.Join(dir, "outside")
	for _, d := range []string{ws, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w, err := workspace.New(workspace.Config{Root: ws})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.CheckSandbox(); err != nil {
		t.Skipf("the sandbox cannot run here: %v", err)
	}
	host, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		t.Skipf("no PID namespace to compare: %v", err)
	}
	cmd := `touch ` + outside + `/escaped 2>/dev/null; touch inside; readlink /proc/self/ns/pid; pwd`
	spec, err := Parse([]byte(`{"argv": ["sh", "-c", ` + quote(cmd) + `], "sandbox": true}`))
	if err != nil {
		t.Fatal(err)
	}
	spec.Workspace = w
	p, _ := newProvider(t, spec)
	res := run(t, p, context.Background(), agentapi.Request{AgentID: "ag_1", Prompt: "x"})
	if res.Status != agentapi.StatusCompleted {
		t.Fatalf("result %+v", res)
	}
	lines := strings.Fields(res.Text)
	if len(lines) != 2 || lines[0] == host || lines[1] != w.Root() {
		t.Errorf("the command printed %q, want a PID namespace other than %s and the workspace as its folder", res.Text, host)
	}
	if _, err := os.Stat(filepath.Join(outside, "escaped")); err == nil {
		t.Error("a sandboxed command wrote outside its workspace")
	}
	if _, err := os.Stat(filepath.Join(ws, "inside")); err != nil {
		t.Errorf("a sandboxed command could not write in its workspace: %v", err)
	}
	if _, err := New(Spec{Argv: []string{"true"}, Sandbox: true}); err == nil {
		t.Error("a sandboxed spec without a workspace was accepted")
	}
}

func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}
