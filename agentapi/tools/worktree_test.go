package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wfrun/wfrun/agentapi/workspace"
)

// TestIsolatedChildrenEditTheSameFileInTheirOwnWorktrees drives three
// children the way a provider would: each gets a worktree and a tool set
// rooted in it. Two edit the same line differently (one also commits with
// Bash, under the sandbox), the third only reads. Both editors' worktrees
// survive with their own content; the reader's is removed.
func TestIsolatedChildrenEditTheSameFileInTheirOwnWorktrees(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, map[string]string{"config.yaml": "level: 1\n"})
	f.gitInit()
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", f.root, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("add", ".")
	git("commit", "--quiet", "-m", "base")

	ctx := context.Background()
	type child struct {
		id   string
		work func(s *Set) error
	}
	edit := func(level string) func(s *Set) error {
		return func(s *Set) error {
			_, err := s.Call(ctx, Edit, []byte(`{"file_path":"config.yaml","old_string":"level: 1","new_string":"level: `+level+`"}`))
			return err
		}
	}
	children := []child{
		{"ag_t_1", edit("2")},
		{"ag_t_2", func(s *Set) error {
			if err := edit("3")(s); err != nil {
				return err
			}
			_, err := s.Call(ctx, Bash, []byte(`{"command":"git -c user.name=c -c user.email=c@example.com commit --quiet -am 'level 3' && git log --format=%s -1"}`))
			return err
		}},
		{"ag_t_3", func(s *Set) error {
			_, err := s.Call(ctx, Read, []byte(`{"file_path":"config.yaml"}`))
			return err
		}},
	}
	kept := make([]*workspace.Kept, len(children))
	var wg sync.WaitGroup
	for i, c := range children {
		wg.Go(func() {
			wt, err := f.set.Workspace().AddWorktree(ctx, c.id)
			if err != nil {
				t.Error(err)
				return
			}
			s, err := New(wt.Workspace(), Options{})
			if err != nil {
				t.Error(err)
				return
			}
			if err := c.work(s); err != nil {
				t.Errorf("%s: %v", c.id, err)
			}
			s.Close()
			if kept[i], err = wt.Finish(ctx); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	for i, want := range []string{"level: 2\n", "level: 3\n"} {
		if kept[i] == nil {
			t.Fatalf("%s's worktree was removed", children[i].id)
		}
		b, err := os.ReadFile(filepath.Join(kept[i].Path, "config.yaml"))
		if err != nil || string(b) != want {
			t.Fatalf("%s's worktree holds %q, %v; want %q", children[i].id, b, err, want)
		}
	}
	if got := git("log", "--format=%s", "-1", kept[1].Branch); got != "level 3" {
		t.Fatalf("the committing child's branch holds %q", got)
	}
	if kept[2] != nil {
		t.Fatalf("the reader's worktree was kept: %+v", kept[2])
	}
	if f.read("config.yaml") != "level: 1\n" || git("status", "--porcelain") != "" {
		t.Fatalf("the main checkout changed:\n%s", git("status", "--porcelain"))
	}
	if got := f.paths(f.ok(Grep, obj{"pattern": "level"})); fmt.Sprint(got) != "[config.yaml]" {
		t.Fatalf("Grep in the main workspace reached into worktrees: %v", got)
	}
}

// TestAHostileChildsGitConfigNeverRunsInWfrunsGit plays the attack end to
// end with the tools: a child of the main workspace writes the
// repository's config with Write (an fsmonitor that leaves a marker
// outside) and plants a link at .wfrun/worktrees with Bash; a later
// isolated child is refused rather than made outside, and once the link is
// gone, a child that touches a file ends without the fsmonitor running.
func TestAHostileChildsGitConfigNeverRunsInWfrunsGit(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, map[string]string{"app.txt": "v1\n"})
	f.gitInit()
	commit := exec.Command("git", "-C", f.root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "--quiet", "-m", "base")
	if out, err := exec.Command("git", "-C", f.root, "add", ".").CombinedOutput(); err != nil {
		t.Fatalf("git add: %v\n%s", err, out)
	}
	if out, err := commit.CombinedOutput(); err != nil {
		t.Fatalf("git commit: %v\n%s", err, out)
	}
	marker := filepath.Join(f.outside, "pwned")
	config, err := os.ReadFile(filepath.Join(f.root, ".git", "config"))
	if err != nil {
		t.Fatal(err)
	}
	// The tools may refuse to write .git/config; then the attack is written
	// as a child's Bash would, which the sandbox allows in the workspace.
	hostile := string(config) + "[core]\n\tfsmonitor = touch " + marker + "\n"
	if _, err := f.call(Write, obj{"file_path": ".git/config", "content": hostile}); err != nil {
		if err := os.WriteFile(filepath.Join(f.root, ".git", "config"), []byte(hostile), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The sandbox keeps .wfrun read-only to Bash; a child in
	// danger-full-access could plant the link, as here.
	if _, err := f.call(Bash, obj{"command": "mkdir -p .wfrun && ln -s " + f.outside + " .wfrun/worktrees"}); err != nil {
		if err := os.MkdirAll(filepath.Join(f.root, ".wfrun"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(f.outside, filepath.Join(f.root, ".wfrun", "worktrees")); err != nil {
			t.Fatal(err)
		}
	}

	ctx := context.Background()
	if _, err := f.set.Workspace().AddWorktree(ctx, "ag_h_1"); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("AddWorktree through a planted link = %v, want a refusal naming the link", err)
	}
	if entries, _ := os.ReadDir(f.outside); len(entries) != 1 {
		t.Fatalf("wfrun wrote outside the workspace: %v", entries)
	}
	if err := os.Remove(filepath.Join(f.root, ".wfrun", "worktrees")); err != nil {
		t.Fatal(err)
	}
	wt, err := f.set.Workspace().AddWorktree(ctx, "ag_h_2")
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(wt.Workspace(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Call(ctx, Write, []byte(`{"file_path":"app.txt","content":"v1\n"}`)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	kept, err := wt.Finish(ctx)
	if _, serr := os.Stat(marker); serr == nil {
		t.Fatal("the fsmonitor a child configured ran in wfrun's own git")
	}
	if err != nil || kept != nil {
		t.Fatalf("Finish = %+v, %v; want the unchanged worktree removed", kept, err)
	}
}
