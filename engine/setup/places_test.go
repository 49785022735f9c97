package setup_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/wfrun/wfrun/agentapi/persona"
	"github.com/wfrun/wfrun/engine/setup"
)

func TestSavedWorkflowsAreFoundInTheWorkspace(t *testing.T) {
	ws := t.TempDir()
	wf := filepath.Join(ws, ".wfrun", "workflows")
	if err := os.MkdirAll(wf, 0o755); err != nil {
		t.Fatal(err)
	}
	src := "export const meta = {name: 'tidy', description: 'tidies'}\nreturn 1\n"
	if err := os.WriteFile(filepath.Join(wf, "tidy.js"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	list, err := setup.SavedWorkflows(nil, ws, t.TempDir())
	if err != nil || len(list.Workflows) != 1 || list.Workflows[0].Name != "tidy" {
		t.Fatalf("list %+v %v", list, err)
	}
	if _, err := setup.SavedWorkflows(nil, filepath.Join(wf, "tidy.js"), ""); err == nil {
		t.Fatal("saved workflows of a workspace that is a file")
	}
}

func TestLocalFindsTheWorkspacesPersonasAndWorkflows(t *testing.T) {
	ws := t.TempDir()
	agents := filepath.Join(ws, ".claude", "agents")
	if err := os.MkdirAll(agents, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(agents, "critic.md"), []byte("---\nname: critic\ndescription: finds faults\n---\nBe harsh.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := setup.Local(ws, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Workspace != ws || cfg.Personas == nil || !slices.ContainsFunc(cfg.Personas.Personas(), func(p persona.Persona) bool { return p.Name == "critic" }) {
		t.Fatalf("config %+v", cfg)
	}
	if !slices.Contains(cfg.WorkflowsDirs, filepath.Join(ws, ".wfrun", "workflows")) {
		t.Fatalf("workflows folders %v", cfg.WorkflowsDirs)
	}
	if _, err := setup.Local(filepath.Join(ws, ".claude", "agents", "critic.md"), ""); err == nil {
		t.Fatal("a workspace that is a file")
	}
}
