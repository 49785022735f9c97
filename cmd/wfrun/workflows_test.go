package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/listing"
)

// claudeProject lays out a workspace as a Claude Code project keeps its
// saved workflows and agents: .claude/workflows/review-launcher.js, a
// broken saved workflow, an agent file whose description has an unquoted
// ": ", and a README.md beside the agents. It returns the workspace, a
// home folder and a parent script outside both.
func claudeProject(t *testing.T) (ws, home, parent string) {
	t.Helper()
	root := t.TempDir()
	ws, home = filepath.Join(root, "ws"), filepath.Join(root, "home")
	files := map[string]string{
		filepath.Join(ws, ".claude", "workflows", "review-launcher.js"): "export const meta = {name: 'review-launcher', description: 'Launches a review of one PR', phases: [{title: 'Review'}]}\n" +
			"phase('Review')\nreturn {reviewed: args.pr, by: await agent('review PR ' + args.pr, {agentType: 'floor'})}\n",
		filepath.Join(ws, ".claude", "workflows", "broken.js"): "export const meta = {name: 'broken', description: 'd'}\nconst n: number = 1\n",
		filepath.Join(ws, ".claude", "agents", "floor.md"):     "---\nname: floor\ndescription: THE FLOOR PRODUCER: per triage.md, one artifact.\n---\nProduce.\n",
		filepath.Join(ws, ".claude", "agents", "README.md"):    "# Agents\n\nOne file per sub-agent.\n",
		filepath.Join(home, ".claude", "workflows", "mine.js"): "export const meta = {name: 'mine', description: 'A personal workflow'}\nreturn 'mine'\n",
		filepath.Join(root, "parent.js"):                       "export const meta = {name: 'parent', description: 'd'}\nreturn [await workflow('review-launcher', {pr: 42}), await workflow('mine')]\n",
	}
	for path, content := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws, home, filepath.Join(root, "parent.js")
}

func TestASavedWorkflowOfTheWorkspaceIsFoundWithNoFlag(t *testing.T) {
	ws, home, parent := claudeProject(t)
	o := invoke(t, call{args: []string{parent, "--workspace", ws}, environ: map[string]string{"HOME": home}})
	o.wantCode(t, exitCompleted)
	res := o.result(t)
	if got := compact(t, res.Value); got != `[{"reviewed":42,"by":"review PR 42"},"mine"]` {
		t.Fatalf("value = %s", got)
	}
	// The lenient agent file loaded, and the run says so.
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "floor.md:3") {
		t.Errorf("warnings = %q, want the floor.md line", res.Warnings)
	}
}

func TestASavedWorkflowRunsByNameFromTheShell(t *testing.T) {
	ws, home, _ := claudeProject(t)
	for _, args := range [][]string{
		{"review-launcher", "--workspace", ws, "--args", `{"pr":7}`},
		{"run", "review-launcher", "--workspace", ws, "--args", `{"pr":7}`},
	} {
		o := invoke(t, call{args: args, environ: map[string]string{"HOME": home}})
		o.wantCode(t, exitCompleted)
		if got := compact(t, o.result(t).Value); got != `{"reviewed":7,"by":"review PR 7"}` {
			t.Errorf("%v: value = %s", args, got)
		}
	}
	o := invoke(t, call{args: []string{"no-such-flow", "--workspace", ws}, environ: map[string]string{"HOME": home}})
	o.wantCode(t, exitUsage)
	if !strings.Contains(o.stderr, "neither a file nor a saved workflow") || !strings.Contains(o.stderr, "review-launcher") {
		t.Errorf("stderr = %s", o.stderr)
	}
}

func TestWorkflowsListsTheSavedWorkflowsAndTheFilesThatFailed(t *testing.T) {
	ws, home, _ := claudeProject(t)
	o := invoke(t, call{args: []string{"workflows", "--workspace", ws, "--json"}, environ: map[string]string{"HOME": home}})
	o.wantCode(t, exitFailed) // broken.js; the listing is printed all the same
	var got engine.SavedWorkflows
	if err := json.Unmarshal([]byte(o.stdout), &got); err != nil {
		t.Fatalf("stdout is not the listing (%v):\n%s", err, o.stdout)
	}
	if len(got.Workflows) != 2 || got.Workflows[0].Name != "mine" || got.Workflows[1].Name != "review-launcher" ||
		got.Workflows[1].Description != "Launches a review of one PR" || len(got.Workflows[1].Phases) != 1 {
		t.Errorf("workflows = %+v", got.Workflows)
	}
	if len(got.Errors) != 1 || !strings.HasSuffix(got.Errors[0].File, "broken.js") || got.Errors[0].Line != 2 {
		t.Errorf("errors = %+v", got.Errors)
	}
	if len(got.Dirs) != 3 || got.Dirs[0].Path != filepath.Join(ws, ".claude", "workflows") {
		t.Errorf("dirs = %+v", got.Dirs)
	}

	o = invoke(t, call{args: []string{"workflows", "--workspace", ws}, environ: map[string]string{"HOME": home}})
	for _, want := range []string{"review-launcher", "Launches a review of one PR", "broken.js:2:"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("the table lacks %q:\n%s", want, o.stdout)
		}
	}
}

func TestAgentsListsTheFilesThatLoadedWithAWarning(t *testing.T) {
	ws, home, _ := claudeProject(t)
	o := invoke(t, call{args: []string{"agents", "--workspace", ws, "--json"}, environ: map[string]string{"HOME": home}})
	o.wantCode(t, exitCompleted) // README.md is skipped, floor.md loads
	var got listing.Agents
	if err := json.Unmarshal([]byte(o.stdout), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Warnings) != 1 || got.Warnings[0].Line != 3 || !strings.HasSuffix(got.Warnings[0].File, "floor.md") {
		t.Errorf("warnings = %+v", got.Warnings)
	}
}
