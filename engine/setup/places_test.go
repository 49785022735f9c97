package setup_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi/persona"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/setup"
)

func TestWorkspace(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if got, err := setup.Workspace(""); err != nil || got != wd {
		t.Errorf("none: %q %v, want the current folder %s", got, err, wd)
	}
	if got, err := setup.Workspace(dir); err != nil || got != dir {
		t.Errorf("a folder: %q %v", got, err)
	}
	if _, err := setup.Workspace(file); err == nil || !strings.Contains(err.Error(), "--workspace "+file+" is not a folder") {
		t.Errorf("a file: %v", err)
	}
	if _, err := setup.Personas(nil, file, ""); err == nil {
		t.Error("personas of a workspace that is a file")
	}
	if _, err := setup.SavedWorkflows(nil, file, ""); err == nil {
		t.Error("saved workflows of a workspace that is a file")
	}
}

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
	cfg := engine.Config{Workspace: ws, WorkflowsDirs: engine.WorkflowSearchDirs(nil, ws, "")}
	if _, got, err := setup.FindSavedWorkflow(cfg, "tidy"); err != nil || got != src {
		t.Fatalf("find: %q %v", got, err)
	}
	_, _, err = setup.FindSavedWorkflow(cfg, "untidy")
	var coded *engine.Error
	if err == nil || errors.As(err, &coded) || !strings.Contains(err.Error(), "untidy") {
		t.Fatalf("a missing workflow's error should be the sentence alone: %v", err)
	}
}

func TestIsSavedWorkflowRef(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("present", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for arg, want := range map[string]bool{"review": true, "code-review.v2": true, "present": false, "x.js": false, "-": false, "a/b": false, "../x": false, "": false} {
		if got := setup.IsSavedWorkflowRef(arg); got != want {
			t.Errorf("IsSavedWorkflowRef(%q) = %v", arg, got)
		}
	}
}

func TestEngineDefaultsAreTheRequestsLimits(t *testing.T) {
	var cfg engine.Config
	setup.EngineDefaults(&cfg, engine.WorkflowStartRequest{SubagentProvider: "openai", MaxTotalAgents: 7, Concurrency: 3, BudgetTokens: 1000,
		MaxMemoryBytes: 1 << 20, MaxRunFolderBytes: 1 << 30, Isolate: "process", TimeoutMs: 2000, AgentTimeoutMs: 500})
	if cfg.DefaultProvider != "openai" || cfg.MaxTotalAgents != 7 || cfg.Concurrency != 3 || cfg.BudgetTokens != 1000 || cfg.MaxMemory != 1<<20 ||
		cfg.MaxRunFolder != 1<<30 || cfg.Isolate != "process" || cfg.RunTimeout != 2*time.Second || cfg.AgentTimeout != 500*time.Millisecond {
		t.Fatalf("config %+v", cfg)
	}
	cfg = engine.Config{DefaultProvider: "fake"}
	setup.EngineDefaults(&cfg, engine.WorkflowStartRequest{})
	if cfg.DefaultProvider != "fake" {
		t.Fatalf("a request that names no provider changed the default to %q", cfg.DefaultProvider)
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
