package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/engine/listing"
)

// agentsWorkspace is a workspace whose .claude/agents holds the three
// persona files of the shared scripts and a broken one, plus a home folder
// with a persona of its own.
func agentsWorkspace(t *testing.T) (ws, home string) {
	t.Helper()
	root := t.TempDir()
	ws, home = filepath.Join(root, "ws"), filepath.Join(root, "home")
	dir := filepath.Join(ws, ".claude", "agents")
	files := map[string]string{
		filepath.Join(dir, "route-auditor.md"):                 "---\nname: route-auditor\ndescription: Audits routes.\ntools: Read, Grep, Glob\nmodel: haiku\n---\nAudit.\n",
		filepath.Join(dir, "skeptic.md"):                       "---\nname: skeptic\ntools: [\"Read\", \"WebSearch\"]\nmodel: sonnet\n---\nDoubt.\n",
		filepath.Join(dir, "broken.md"):                        "---\nname: broken\ntools: [Read\n---\n",
		filepath.Join(home, ".claude", "agents", "helper.md"):  "---\nname: helper\npermissionMode: plan\n---\nHelp.\n",
		filepath.Join(home, ".claude", "agents", "skeptic.md"): "---\nname: skeptic\n---\nThe home one, shadowed.\n",
	}
	for path, content := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws, home
}

func TestAgentsListsThePersonasAndTheFilesThatFailedToLoad(t *testing.T) {
	ws, home := agentsWorkspace(t)
	o := invoke(t, call{args: []string{"agents", "--workspace", ws, "--json"}, environ: map[string]string{"HOME": home}})
	o.wantCode(t, exitFailed) // one file is broken; the listing is printed all the same

	var got listing.Agents
	if err := json.Unmarshal([]byte(o.stdout), &got); err != nil {
		t.Fatalf("stdout is not the listing (%v):\n%s", err, o.stdout)
	}
	source := map[string]string{}
	for _, p := range got.Personas {
		source[p.Name] = p.Source
	}
	want := map[string]string{
		"Explore": "built-in", "Plan": "built-in", "general-purpose": "built-in",
		"route-auditor": filepath.Join(ws, ".claude", "agents", "route-auditor.md"),
		"skeptic":       filepath.Join(ws, ".claude", "agents", "skeptic.md"), // the workspace's beats home's
		"helper":        filepath.Join(home, ".claude", "agents", "helper.md"),
	}
	if len(source) != len(want) {
		t.Errorf("personas = %v, want %v", source, want)
	}
	for name, src := range want {
		if source[name] != src {
			t.Errorf("%s comes from %q, want %q", name, source[name], src)
		}
	}
	if len(got.Errors) != 1 || got.Errors[0].File != filepath.Join(ws, ".claude", "agents", "broken.md") ||
		got.Errors[0].Line != 3 || !strings.Contains(got.Errors[0].Message, "not valid YAML") {
		t.Errorf("errors = %+v, want broken.md line 3", got.Errors)
	}
	if len(got.Dirs) != 3 || !got.Dirs[0].Found || got.Dirs[1].Found || !got.Dirs[2].Found {
		t.Errorf("dirs = %+v, want .claude/agents found, .wfrun/agents not, home found", got.Dirs)
	}
}

func TestAgentsPrintsATableForAPerson(t *testing.T) {
	ws, home := agentsWorkspace(t)
	o := invoke(t, call{args: []string{"agents", "--workspace", ws}, environ: map[string]string{"HOME": home}})
	o.wantCode(t, exitFailed)
	for _, want := range []string{
		"Folders searched, first match wins:",
		filepath.Join(ws, ".wfrun", "agents") + "  (none)",
		"route-auditor", "haiku", "Read, Grep, Glob",
		"helper", "all [read-only]",
		"1 file could not be loaded:",
		filepath.Join(ws, ".claude", "agents", "broken.md") + ":3: the front matter is not valid YAML",
	} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("the table does not show %q:\n%s", want, o.stdout)
		}
	}
}

func TestAgentsDirsComeFirstAndAllLoadingIsExitZero(t *testing.T) {
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	os.MkdirAll(a, 0o755)
	os.MkdirAll(b, 0o755)
	os.WriteFile(filepath.Join(a, "r.md"), []byte("---\nname: reviewer\n---\nfrom a\n"), 0o644)
	os.WriteFile(filepath.Join(b, "r.md"), []byte("---\nname: reviewer\n---\nfrom b\n"), 0o644)
	ws := filepath.Join(root, "ws")
	os.MkdirAll(ws, 0o755)
	o := invoke(t, call{args: []string{"agents", "--agents-dir", b, "--agents-dir=" + a, "--workspace", ws, "--json"}})
	o.wantCode(t, exitCompleted)
	var got listing.Agents
	_ = json.Unmarshal([]byte(o.stdout), &got)
	for _, p := range got.Personas {
		if p.Name == "reviewer" && p.Source != filepath.Join(b, "r.md") {
			t.Errorf("reviewer comes from %s, want the first --agents-dir", p.Source)
		}
	}
	if len(got.Dirs) != 4 || got.Dirs[0].Path != b || got.Dirs[1].Path != a {
		t.Errorf("dirs = %+v, want the two --agents-dir first, in order", got.Dirs)
	}
}

func TestAgentsRefusesABadInvocation(t *testing.T) {
	for _, args := range [][]string{
		{"agents", "--frobnicate"},
		{"agents", "extra"},
		{"agents", "--workspace", filepath.Join(t.TempDir(), "missing")},
		{"agents", "--agents-dir", ""},
	} {
		o := wfrun(t, args...)
		o.wantCode(t, exitUsage)
		if o.stdout != "" || !strings.HasPrefix(o.stderr, "wfrun: ") {
			t.Errorf("wfrun %q: stdout %q, stderr %q; want a message on stderr only", args, o.stdout, o.stderr)
		}
	}
}
