package workspace

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCheckWriteRefusesProtectedPaths(t *testing.T) {
	t.Parallel()
	w := repo(t, Config{})
	r := w.Root()
	refused := []string{
		".git", ".git/config", ".git/config.worktree", ".git/hooks", ".git/hooks/pre-commit", ".git/info/exclude",
		".git/modules/sub/config", ".git/commondir", ".git/HEAD", ".git/objects/ab", ".wfrun", ".wfrun/worktrees/x/file",
		".claude", ".claude/settings.json",
	}
	for _, p := range refused {
		err := w.CheckWrite(filepath.Join(r, p))
		if err == nil || !strings.HasPrefix(err.Error(), filepath.Join(r, p)+" is protected: ") || !strings.Contains(err.Error(), "read-only to children") {
			t.Errorf("CheckWrite(%s) = %v, want a sentence that says it is protected", p, err)
		}
	}
	allowed := []string{"README", "src/app.txt", ".gitignore", ".gitx", ".wfrunx", ".claudex/a", "src/.git/config", "src/.wfrun", ".github/workflows/ci.yml"}
	for _, p := range allowed {
		if err := w.CheckWrite(filepath.Join(r, p)); err != nil {
			t.Errorf("CheckWrite(%s) = %v, want nil", p, err)
		}
	}
}

func TestProtectedCoversAWorktreesGitPointers(t *testing.T) {
	t.Parallel()
	w := repo(t, Config{})
	wt, err := w.AddWorktree(context.Background(), "ag_p_1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = wt.Finish(context.Background()) })
	cw := wt.Workspace()
	own, err := filepath.EvalSymlinks(gitIn(t, wt.Path(), "rev-parse", "--absolute-git-dir"))
	if err != nil {
		t.Fatal(err)
	}
	got := cw.Protected()
	want := []string{filepath.Join(cw.Root(), ".git"), filepath.Join(cw.Root(), ".wfrun")}
	for _, f := range []string{"config", "config.worktree", "commondir", "gitdir"} {
		want = append(want, filepath.Join(own, f))
	}
	for _, p := range want {
		if !slices.Contains(got, p) {
			t.Errorf("Protected() lacks %s: %v", p, got)
		}
		if err := cw.CheckWrite(p); err == nil || !strings.Contains(err.Error(), "is protected") {
			t.Errorf("CheckWrite(%s) = %v", p, err)
		}
	}
	if err := cw.CheckWrite(filepath.Join(own, "HEAD")); err != nil {
		t.Errorf("the worktree's HEAD is the child's to move: %v", err)
	}
	// The main workspace's .git is a folder, listed whole: git would
	// follow a commondir file a child wrote there.
	if !slices.Contains(w.Protected(), filepath.Join(w.Root(), ".git")) {
		t.Errorf("the .git folder is not listed: %v", w.Protected())
	}
	// Outside a repository, .git may not be created either.
	plain, _, _ := sandboxed(t, Config{})
	if err := plain.CheckWrite(filepath.Join(plain.Root(), ".git", "config")); err == nil {
		t.Error("outside a repository, a child may create .git")
	}
}
