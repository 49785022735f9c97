package openai

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/workspace"
	"github.com/wfrun/wfrun/internal/testkit/gittest"
	"github.com/wfrun/wfrun/internal/wferr"
)

// repo makes a git repository with one committed file and returns its
// workspace in mode.
func repo(t *testing.T, mode workspace.Mode) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.New(workspace.Config{Root: gittest.Repo(t, map[string]string{"notes.md": "first line\n"}), Mode: mode})
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func offered(s *scriptServer, i int) []string {
	var names []string
	for _, tl := range s.requests()[i].body.Tools {
		names = append(names, tl.Function.Name)
	}
	slices.Sort(names)
	return names
}

func TestAChildWorksWithTheBuiltInToolsInTheWorkspace(t *testing.T) {
	ws := repo(t, workspace.WorkspaceWrite)
	s := newServer(t,
		callTools(usage{10, 5, 0}, call{"c1", "Write", `{"file_path": "out/answer.txt", "content": "42\n"}`}),
		reply("wrote it", usage{20, 3, 0}))
	cfg := testConfig(s)
	cfg.Workspace = ws
	res := run(t, mustNew(t, cfg), agentapi.Request{Prompt: "write the answer"})
	if res.Status != agentapi.StatusCompleted || res.Worktree != nil {
		t.Fatalf("result %+v", res)
	}
	if got := offered(s, 0); !slices.Equal(got, []string{"Bash", "Edit", "Glob", "Grep", "Read", "TodoWrite", "Write"}) {
		t.Fatalf("offered %v", got)
	}
	if data, err := os.ReadFile(filepath.Join(ws.Root(), "out", "answer.txt")); err != nil || string(data) != "42\n" {
		t.Fatalf("the Write tool did not write in the workspace: %q %v", data, err)
	}
}

func TestAReadOnlyPersonaCannotWrite(t *testing.T) {
	ws := repo(t, workspace.WorkspaceWrite)
	s := newServer(t, reply("looked", usage{1, 1, 0}))
	cfg := testConfig(s)
	cfg.Workspace = ws
	run(t, mustNew(t, cfg), agentapi.Request{Prompt: "explore", Persona: "Explore"})
	for _, name := range offered(s, 0) {
		if name == "Write" || name == "Edit" {
			t.Fatalf("a read-only persona was offered %s: %v", name, offered(s, 0))
		}
	}
}

func TestAnIsolatedChildKeepsItsChangesInAWorktreeOfItsOwn(t *testing.T) {
	ws := repo(t, workspace.WorkspaceWrite)
	s := newServer(t,
		callTools(usage{10, 5, 0}, call{"c1", "Edit", `{"file_path": "notes.md", "old_string": "first line", "new_string": "changed in isolation"}`}),
		reply("edited", usage{20, 3, 0}),
		reply("nothing to change", usage{5, 2, 0}))
	cfg := testConfig(s)
	cfg.Workspace = ws
	p := mustNew(t, cfg)
	if !p.Capabilities().Isolation {
		t.Fatal("a provider with a workspace does not declare isolation")
	}

	res := run(t, p, agentapi.Request{AgentID: "ag_x_1", Prompt: "edit the notes", Isolation: IsolationWorktree})
	if res.Status != agentapi.StatusCompleted || res.Worktree == nil {
		t.Fatalf("result %+v: an isolated child with changes must report its worktree", res)
	}
	if res.Worktree.Branch != "wfrun/ag_x_1" || !strings.HasSuffix(res.Worktree.Path, filepath.Join(".wfrun", "worktrees", "ag_x_1")) {
		t.Fatalf("worktree %+v", res.Worktree)
	}
	if data, _ := os.ReadFile(filepath.Join(res.Worktree.Path, "notes.md")); string(data) != "changed in isolation\n" {
		t.Fatalf("the worktree holds %q", data)
	}
	if data, _ := os.ReadFile(filepath.Join(ws.Root(), "notes.md")); string(data) != "first line\n" {
		t.Fatalf("the isolated child changed the workspace itself: %q", data)
	}

	// A child that changes nothing leaves no worktree behind.
	res = run(t, p, agentapi.Request{AgentID: "ag_x_2", Prompt: "look only", Isolation: IsolationWorktree})
	if res.Worktree != nil {
		t.Fatalf("an unchanged worktree was kept: %+v", res.Worktree)
	}
	if _, err := os.Stat(filepath.Join(ws.Root(), ".wfrun", "worktrees", "ag_x_2")); !os.IsNotExist(err) {
		t.Fatalf("the unchanged worktree is still on disk: %v", err)
	}
}

func TestIsolationNeedsAWorkspaceAndAKnownValue(t *testing.T) {
	s := newServer(t)
	cases := []struct {
		name string
		ws   *workspace.Workspace
		iso  string
		want wferr.Code
	}{
		{"no workspace", nil, IsolationWorktree, wferr.UnsupportedOption},
		{"unknown isolation", repo(t, workspace.WorkspaceWrite), "container", wferr.UnsupportedOption},
		{"not a repository", func() *workspace.Workspace {
			ws, err := workspace.New(workspace.Config{Root: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			return ws
		}(), IsolationWorktree, wferr.AgentStart},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := testConfig(s)
			cfg.Workspace = c.ws
			_, err := mustNew(t, cfg).Run(t.Context(), agentapi.Request{AgentID: "ag_1", Prompt: "x", Isolation: c.iso})
			if wferr.CodeOf(err) != c.want {
				t.Fatalf("err = %v, want %s", err, c.want)
			}
		})
	}
}
