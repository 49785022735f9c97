package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wfrun/wfrun/internal/wferr"
)

// gitIn runs git in dir for a test, with an identity for commits, and
// returns its trimmed output.
func gitIn(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=test", "GIT_COMMITTER_EMAIL=test@example.com", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// repo creates a git repository with one commit of README and src/app.txt
// and returns its workspace.
func repo(t testing.TB, cfg Config) *Workspace {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gitIn(t, dir, "init", "--quiet", "--initial-branch=main")
	write(t, filepath.Join(dir, "README"), "hello\n")
	write(t, filepath.Join(dir, "src", "app.txt"), "version 1\n")
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "--quiet", "-m", "first")
	if cfg.Root == "" {
		cfg.Root = dir
	} else {
		cfg.Root = filepath.Join(dir, cfg.Root)
	}
	w, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func write(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func branches(t testing.TB, dir string) string {
	return gitIn(t, dir, "branch", "--list", "--format=%(refname:short)")
}

func TestAnUnchangedWorktreeIsRemovedWithItsBranch(t *testing.T) {
	t.Parallel()
	w := repo(t, Config{})
	ctx := context.Background()
	wt, err := w.AddWorktree(ctx, "ag_run_1")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(w.Root(), ".wfrun/worktrees/ag_run_1"); wt.Path() != want || wt.Workspace().Root() != want || wt.Branch() != "wfrun/ag_run_1" {
		t.Fatalf("path %s, root %s, branch %s", wt.Path(), wt.Workspace().Root(), wt.Branch())
	}
	if b, err := os.ReadFile(filepath.Join(wt.Path(), "src/app.txt")); err != nil || string(b) != "version 1\n" {
		t.Fatalf("the worktree is not a checkout of HEAD: %q, %v", b, err)
	}
	if st := gitIn(t, w.Root(), "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Fatalf("the worktree shows up in the main checkout's status:\n%s", st)
	}
	kept, err := wt.Finish(ctx)
	if err != nil || kept != nil {
		t.Fatalf("Finish = %+v, %v; want the worktree removed", kept, err)
	}
	if _, err := os.Stat(wt.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the worktree folder is still there: %v", err)
	}
	if b := branches(t, w.Root()); b != "main" {
		t.Fatalf("branches left: %q", b)
	}
	if list := gitIn(t, w.Root(), "worktree", "list", "--porcelain"); strings.Count(list, "worktree ") != 1 {
		t.Fatalf("git still lists the worktree:\n%s", list)
	}
}

func TestAChangedWorktreeIsKept(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		change func(t *testing.T, dir string)
	}{
		{"an edited file", func(t *testing.T, dir string) { write(t, filepath.Join(dir, "README"), "edited\n") }},
		{"a new file", func(t *testing.T, dir string) { write(t, filepath.Join(dir, "new/notes.md"), "x") }},
		{"a deleted file", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "README")) }},
		{"a commit", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "README"), "committed\n")
			gitIn(t, dir, "commit", "--quiet", "-am", "child's work")
		}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			w := repo(t, Config{})
			wt, err := w.AddWorktree(context.Background(), fmt.Sprintf("ag_x_%d", i))
			if err != nil {
				t.Fatal(err)
			}
			c.change(t, wt.Path())
			kept, err := wt.Finish(context.Background())
			if err != nil || kept == nil || kept.Path != wt.Path() || kept.Branch != wt.Branch() {
				t.Fatalf("Finish = %+v, %v; want it kept", kept, err)
			}
			if _, err := os.Stat(kept.Path); err != nil {
				t.Fatalf("the kept worktree is gone: %v", err)
			}
			if !strings.Contains(branches(t, w.Root()), kept.Branch) {
				t.Fatalf("the branch %s is gone", kept.Branch)
			}
		})
	}
}

func TestParallelWorktreesKeepTheirOwnEdits(t *testing.T) {
	t.Parallel()
	w := repo(t, Config{})
	ctx := context.Background()
	const n = 6
	trees := make([]*Worktree, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { trees[i], errs[i] = w.AddWorktree(ctx, fmt.Sprintf("ag_par_%d", i)) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("worktree %d: %v", i, err)
		}
	}
	// The first two edit the same file differently; the rest change nothing.
	for i, wt := range trees[:2] {
		write(t, filepath.Join(wt.Workspace().Root(), "src/app.txt"), fmt.Sprintf("version from child %d\n", i))
	}
	kept := make([]*Kept, n)
	for i, wt := range trees {
		wg.Go(func() { kept[i], errs[i] = wt.Finish(ctx) })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("Finish %d: %v", i, errs[i])
		}
		if (kept[i] != nil) != (i < 2) {
			t.Fatalf("worktree %d: kept %+v", i, kept[i])
		}
	}
	for i, k := range kept[:2] {
		b, err := os.ReadFile(filepath.Join(k.Path, "src/app.txt"))
		if err != nil || string(b) != fmt.Sprintf("version from child %d\n", i) {
			t.Fatalf("worktree %d holds %q, %v", i, b, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(w.Root(), "src/app.txt")); string(b) != "version 1\n" {
		t.Fatalf("the main checkout changed: %q", b)
	}
	if st := gitIn(t, w.Root(), "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Fatalf("kept worktrees show up in the main checkout's status:\n%s", st)
	}
	if excl, _ := os.ReadFile(filepath.Join(w.Root(), ".git/info/exclude")); strings.Count(string(excl), "/.wfrun/worktrees/") != 1 {
		t.Fatalf("info/exclude should name the worktrees once:\n%s", excl)
	}
}

func TestAWorkspaceThatIsNotARepositoryCannotIsolate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	w, err := New(Config{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.AddWorktree(context.Background(), "ag_1")
	if !errors.Is(err, ErrNotRepository) || wferr.CodeOf(err) != wferr.AgentStart || !strings.Contains(err.Error(), "git init") {
		t.Fatalf("got %v, want AGENT_START wrapping ErrNotRepository that says to run git init", err)
	}

	gitIn(t, dir, "init", "--quiet")
	_, err = w.AddWorktree(context.Background(), "ag_1")
	if !errors.Is(err, ErrNotRepository) || !strings.Contains(err.Error(), "no commit") {
		t.Fatalf("a repository without commits: %v", err)
	}
}

func TestAgentIDsThatCannotNameABranchAreRefused(t *testing.T) {
	t.Parallel()
	w := repo(t, Config{})
	for _, id := range []string{"", "../x", "a/b", ".hidden", "a..b", "x.lock", "a b", "-flag", strings.Repeat("a", 200)} {
		if _, err := w.AddWorktree(context.Background(), id); err == nil || wferr.CodeOf(err) != wferr.AgentStart {
			t.Errorf("AddWorktree(%q) = %v, want AGENT_START", id, err)
		}
	}
	if _, err := os.Stat(filepath.Join(w.Root(), ".wfrun")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a refused id left .wfrun behind: %v", err)
	}
}

func TestAnExistingWorktreeIsNotReused(t *testing.T) {
	t.Parallel()
	w := repo(t, Config{})
	wt, err := w.AddWorktree(context.Background(), "ag_same")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(wt.Path(), "README"), "work\n")
	_, err = w.AddWorktree(context.Background(), "ag_same")
	if err == nil || !strings.Contains(err.Error(), "git worktree remove") {
		t.Fatalf("a second worktree for the same id: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(wt.Path(), "README")); string(b) != "work\n" {
		t.Fatalf("the first worktree was touched: %q", b)
	}
}

func TestAWorkspaceInASubfolderGetsTheSameSubfolder(t *testing.T) {
	t.Parallel()
	w := repo(t, Config{Root: "src"})
	wt, err := w.AddWorktree(context.Background(), "ag_sub")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(w.Root(), ".wfrun/worktrees/ag_sub/src"); wt.Workspace().Root() != want {
		t.Fatalf("root %s, want %s", wt.Workspace().Root(), want)
	}
	if b, err := os.ReadFile(filepath.Join(wt.Workspace().Root(), "app.txt")); err != nil || string(b) != "version 1\n" {
		t.Fatalf("the worktree's src: %q, %v", b, err)
	}
	top := filepath.Dir(w.Root())
	if st := gitIn(t, top, "status", "--porcelain", "--untracked-files=all"); st != "" {
		t.Fatalf("the worktree shows up in the main checkout's status:\n%s", st)
	}
	if kept, err := wt.Finish(context.Background()); kept != nil || err != nil {
		t.Fatalf("Finish = %+v, %v", kept, err)
	}
}

func TestASandboxedChildCanCommitInItsWorktreeOnly(t *testing.T) {
	t.Parallel()
	w := repo(t, Config{})
	wt, err := w.AddWorktree(context.Background(), "ag_commit")
	if err != nil {
		t.Fatal(err)
	}
	ws := wt.Workspace()
	tmp := t.TempDir()
	commit := "echo child > README && git -c user.name=child -c user.email=child@example.com commit --quiet -am 'child work' && git log --format=%s -1"
	out, status := shellEnv(t, ws, tmp, commit)
	if status != 0 || strings.TrimSpace(out) != "child work" {
		t.Fatalf("a commit in the worktree failed under the sandbox: status %d\n%s", status, out)
	}
	for _, script := range []string{
		"echo x > " + filepath.Join(w.Root(), "README"),                // the main checkout
		"git -C " + w.Root() + " branch -f main HEAD",                  // another branch
		"echo x >> " + filepath.Join(w.Root(), ".git/config"),          // the repository's config
		"echo x > " + filepath.Join(w.Root(), ".git/hooks/pre-commit"), // its hooks
	} {
		if out, status := shellEnv(t, ws, tmp, script); status == 0 {
			t.Errorf("the worktree's sandbox let %q succeed:\n%s", script, out)
		}
	}
	if got := gitIn(t, w.Root(), "log", "--format=%s", "-1", "main"); got != "first" {
		t.Fatalf("main moved to %q", got)
	}
	kept, err := wt.Finish(context.Background())
	if err != nil || kept == nil {
		t.Fatalf("Finish = %+v, %v; want the committed worktree kept", kept, err)
	}
	if got := gitIn(t, w.Root(), "log", "--format=%s", "-1", kept.Branch); got != "child work" {
		t.Fatalf("the kept branch holds %q", got)
	}
}

// shellEnv is shell with the workspace's own environment added.
func shellEnv(t *testing.T, w *Workspace, tmp, script string) (string, int) {
	t.Helper()
	prefix := ""
	for k, v := range w.Env() {
		prefix += k + "=" + v + " "
	}
	if prefix != "" {
		script = "export " + prefix + "; " + script
	}
	return shell(t, w, tmp, script)
}
