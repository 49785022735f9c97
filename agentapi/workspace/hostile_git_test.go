package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wfrun/wfrun/internal/wferr"
)

// These tests play a hostile child: whatever a child can write in its
// workspace or worktree, they write, and then let wfrun add, take up or
// finish a worktree. A hostile command leaves a marker file in a folder
// outside the workspace; none may exist afterwards.

// outside returns a fresh folder outside every workspace and a function
// that fails the test when any marker was left in it.
func outside(t *testing.T) (string, func()) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir, func() {
		t.Helper()
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), "pwned") {
				names = append(names, e.Name())
			}
		}
		if len(names) > 0 {
			t.Fatalf("a command from a child's git configuration ran outside the sandbox: %s left %v", dir, names)
		}
	}
}

// touch is a shell command that leaves the marker name in dir and passes
// its input through, usable as an fsmonitor hook and as a filter.
func touch(dir, name string) string {
	return fmt.Sprintf("touch %s; cat", filepath.Join(dir, name))
}

func TestAnFsmonitorInAGitdirTheChildRewroteDoesNotRun(t *testing.T) {
	t.Parallel()
	out, check := outside(t)
	w := repo(t, Config{})
	ctx := context.Background()
	wt, err := w.AddWorktree(ctx, "ag_gitfile")
	if err != nil {
		t.Fatal(err)
	}
	// The child makes a repository of its own inside its worktree, commits
	// a copy of the checkout there so that its index is not empty, sets an
	// fsmonitor in its config and points the worktree's .git file at it.
	evil := filepath.Join(wt.Path(), "src", "evil")
	gitIn(t, wt.Path(), "init", "--quiet", "--separate-git-dir="+evil, filepath.Join(wt.Path(), "tmp-checkout"))
	gitIn(t, wt.Path(), "--git-dir="+evil, "--work-tree="+wt.Path(), "add", "README", "src/app.txt")
	gitIn(t, wt.Path(), "--git-dir="+evil, "--work-tree="+wt.Path(), "commit", "--quiet", "-m", "evil")
	gitIn(t, wt.Path(), "--git-dir="+evil, "config", "core.fsmonitor", touch(out, "pwned-fsmonitor"))
	gitIn(t, wt.Path(), "--git-dir="+evil, "config", "core.worktree", out)
	if err := os.RemoveAll(filepath.Join(wt.Path(), "tmp-checkout")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(wt.Path(), ".git"), "gitdir: "+evil+"\n")

	kept, err := wt.Finish(ctx)
	check()
	if kept == nil {
		t.Fatalf("Finish = nil, %v; the worktree holds the child's new files and must be kept", err)
	}
}

func TestARepositoryConfigAChildWroteRunsNothing(t *testing.T) {
	t.Parallel()
	out, check := outside(t)
	w := repo(t, Config{})
	ctx := context.Background()
	// A child of the main workspace writes the repository's config: an
	// fsmonitor, a filter for every file (through .git/info/attributes and
	// a committed .gitattributes), hooks of its own, and an include of a
	// file it wrote, which holds another fsmonitor and another filter.
	write(t, filepath.Join(w.Root(), ".gitattributes"), "*.txt filter=evil2\n")
	gitIn(t, w.Root(), "add", ".gitattributes")
	gitIn(t, w.Root(), "commit", "--quiet", "-m", "attributes")
	write(t, filepath.Join(w.Root(), ".git", "info", "attributes"), "* filter=evil\n")
	write(t, filepath.Join(w.Root(), "notes", "inc.cfg"), fmt.Sprintf(
		"[core]\n\tfsmonitor = %s\n[filter \"evil2\"]\n\tclean = %s\n\tsmudge = %s\n\tprocess = %s\n",
		touch(out, "pwned-include-fsmonitor"), touch(out, "pwned-include-clean"), touch(out, "pwned-include-smudge"), touch(out, "pwned-include-process")))
	hooks := filepath.Join(w.Root(), "notes", "hooks")
	for _, h := range []string{"post-checkout", "reference-transaction", "post-index-change", "pre-auto-gc"} {
		write(t, filepath.Join(hooks, h), "#!/bin/sh\ntouch "+filepath.Join(out, "pwned-hook-"+h)+"\n")
		if err := os.Chmod(filepath.Join(hooks, h), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(w.Root(), ".git", "config")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	write(t, cfg, string(b)+fmt.Sprintf(
		"[core]\n\tfsmonitor = %s\n\tpager = %s\n\thooksPath = %s\n[filter \"evil\"]\n\tclean = %s\n\tsmudge = %s\n\trequired = true\n[diff]\n\texternal = %s\n[include]\n\tpath = %s\n",
		touch(out, "pwned-fsmonitor"), touch(out, "pwned-pager"), hooks, touch(out, "pwned-clean"), touch(out, "pwned-smudge"),
		touch(out, "pwned-diff"), filepath.Join(w.Root(), "notes", "inc.cfg")))

	// One worktree the child leaves alone but touches (its files' times
	// change, so git would clean them through the filter to compare), one
	// it edits.
	for i, edit := range []bool{false, true} {
		wt, err := w.AddWorktree(ctx, fmt.Sprintf("ag_cfg_%d", i))
		if err != nil {
			t.Fatal(err)
		}
		check()
		app := filepath.Join(wt.Path(), "src", "app.txt")
		if b, err := os.ReadFile(app); err != nil || string(b) != "version 1\n" {
			t.Fatalf("the worktree's checkout: %q, %v", b, err)
		}
		if edit {
			write(t, app, "version 2\n")
		} else {
			write(t, app, "version 1\n")
		}
		kept, err := wt.Finish(ctx)
		check()
		if err != nil || (kept != nil) != edit {
			t.Fatalf("Finish = %+v, %v; want it kept only when edited (%v)", kept, err, edit)
		}
	}
}

func TestALinkAChildPlantedIsNeverWrittenThrough(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		link  string // relative to the workspace root
		file  bool   // the link points at a file outside, else a folder
		wants string // in the error
	}{
		{"the exclude file", ".git/info/exclude", true, "exclude"},
		{"the info folder", ".git/info", false, "info"},
		{"the worktrees folder", ".wfrun/worktrees", false, "worktrees"},
		{"the .wfrun folder", ".wfrun", false, ".wfrun"},
		{"the worktree lock", ".git/" + lockFile, true, lockFile},
		{"git's worktrees folder", ".git/worktrees", false, "worktrees"},
		{"the branches' ref folder", ".git/refs/heads/wfrun", false, "wfrun"},
		{"the worktree itself", ".wfrun/worktrees/ag_link", false, "ag_link"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out, _ := outside(t)
			w := repo(t, Config{})
			target := filepath.Join(out, "target")
			if c.file {
				write(t, target, "the user's file\n")
			} else if err := os.Mkdir(target, 0o755); err != nil {
				t.Fatal(err)
			}
			link := filepath.Join(w.Root(), filepath.FromSlash(c.link))
			if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.RemoveAll(link); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			_, err := w.AddWorktree(context.Background(), "ag_link")
			if err == nil || wferr.CodeOf(err) != wferr.AgentStart || !strings.Contains(err.Error(), c.wants) {
				t.Fatalf("AddWorktree = %v, want AGENT_START naming %s", err, c.wants)
			}
			if c.file {
				if b, err := os.ReadFile(target); err != nil || string(b) != "the user's file\n" {
					t.Fatalf("the file outside changed: %q, %v", b, err)
				}
			} else if entries, err := os.ReadDir(target); err != nil || len(entries) != 0 {
				t.Fatalf("wfrun wrote in the folder outside: %v, %v", entries, err)
			}
		})
	}
}

func TestAWorktreeReplacedByALinkIsNeitherRemovedNorFollowed(t *testing.T) {
	t.Parallel()
	out, _ := outside(t)
	w := repo(t, Config{})
	ctx := context.Background()
	wt, err := w.AddWorktree(ctx, "ag_swap")
	if err != nil {
		t.Fatal(err)
	}
	// A child of the main workspace moves the worktree away and leaves a
	// link to a folder of the user's in its place, holding an unchanged
	// copy of the checkout.
	write(t, filepath.Join(out, "README"), "hello\n")
	if err := os.Rename(wt.Path(), filepath.Join(w.Root(), "moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, wt.Path()); err != nil {
		t.Fatal(err)
	}
	kept, err := wt.Finish(ctx)
	if err == nil || kept == nil {
		t.Fatalf("Finish = %+v, %v; want it kept with an error", kept, err)
	}
	if b, err := os.ReadFile(filepath.Join(out, "README")); err != nil || string(b) != "hello\n" {
		t.Fatalf("the folder outside was touched: %q, %v", b, err)
	}
	if _, err := wt.main.OpenWorktree(ctx, "ag_swap", wt.Base()); err == nil {
		t.Fatal("OpenWorktree took up a worktree that is a link")
	}
}

func TestAnOpenedWorktreeIgnoresItsGitFile(t *testing.T) {
	t.Parallel()
	out, check := outside(t)
	w := repo(t, Config{})
	ctx := context.Background()
	wt, err := w.AddWorktree(ctx, "ag_reopen")
	if err != nil {
		t.Fatal(err)
	}
	// The child points its .git file at the main repository's git folder,
	// whose config (written by another child) holds an fsmonitor.
	gitIn(t, w.Root(), "config", "core.fsmonitor", touch(out, "pwned-fsmonitor"))
	write(t, filepath.Join(wt.Path(), ".git"), "gitdir: "+filepath.Join(w.Root(), ".git")+"\n")
	again, err := w.OpenWorktree(ctx, "ag_reopen", wt.Base())
	if err != nil {
		t.Fatal(err)
	}
	if again.Workspace().Root() != wt.Workspace().Root() {
		t.Fatalf("the opened worktree's root is %s, want %s", again.Workspace().Root(), wt.Workspace().Root())
	}
	kept, err := again.Finish(ctx)
	check()
	if err != nil || kept != nil {
		t.Fatalf("Finish = %+v, %v; want the unchanged worktree removed", kept, err)
	}
}

func TestARepositoryThatAppearedLaterMayNotPointOutside(t *testing.T) {
	t.Parallel()
	other := repo(t, Config{}) // a repository of the user's, outside the workspace
	w, err := New(Config{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	// A child makes the workspace a checkout of the other repository.
	write(t, filepath.Join(w.Root(), ".git"), "gitdir: "+filepath.Join(other.Root(), ".git")+"\n")
	_, err = w.AddWorktree(context.Background(), "ag_later")
	if err == nil || wferr.CodeOf(err) != wferr.AgentStart || !strings.Contains(err.Error(), "outside the workspace") {
		t.Fatalf("AddWorktree = %v, want AGENT_START saying the git folder is outside", err)
	}
	for _, p := range []string{".git/worktrees", ".git/" + lockFile} {
		if _, err := os.Stat(filepath.Join(other.Root(), p)); err == nil {
			t.Errorf("wfrun wrote %s in the other repository", p)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(other.Root(), ".git/info/exclude")); strings.Contains(string(b), "wfrun") {
		t.Errorf("wfrun wrote the other repository's info/exclude:\n%s", b)
	}
}

func TestAPipeAChildPlantedIsRefusedWithoutWaiting(t *testing.T) {
	t.Parallel()
	for _, name := range []string{".git/info/exclude", ".git/" + lockFile} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			w := repo(t, Config{})
			p := filepath.Join(w.Root(), filepath.FromSlash(name))
			if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skipf("no named pipes here: %v", err)
			}
			if _, err := w.AddWorktree(context.Background(), "ag_pipe"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Fatalf("AddWorktree = %v, want a refusal saying it is not a regular file", err)
			}
		})
	}
}

func TestAnIndexReplacedByALinkIsNotRead(t *testing.T) {
	t.Parallel()
	out, _ := outside(t)
	w := repo(t, Config{})
	ctx := context.Background()
	wt, err := w.AddWorktree(ctx, "ag_index")
	if err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(out, "secret")
	write(t, secret, "DIRC the user's secret\n")
	index := filepath.Join(w.Root(), ".git", "worktrees", "ag_index", "index")
	if err := os.Remove(index); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, index); err != nil {
		t.Fatal(err)
	}
	kept, err := wt.Finish(ctx)
	if kept == nil || err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("Finish = %+v, %v; want it kept with an error naming the link", kept, err)
	}
	if b, _ := os.ReadFile(secret); string(b) != "DIRC the user's secret\n" {
		t.Fatalf("the file outside changed: %q", b)
	}
}

func TestAWorktreeOffItsBranchIsNotTakenUp(t *testing.T) {
	t.Parallel()
	w := repo(t, Config{})
	ctx := context.Background()
	wt, err := w.AddWorktree(ctx, "ag_off")
	if err != nil {
		t.Fatal(err)
	}
	gitIn(t, wt.Path(), "switch", "--quiet", "-c", "elsewhere")
	_, err = w.OpenWorktree(ctx, "ag_off", wt.Base())
	if err == nil || wferr.CodeOf(err) != wferr.AgentStart || !strings.Contains(err.Error(), "switch wfrun/ag_off") {
		t.Fatalf("OpenWorktree = %v, want AGENT_START saying to switch back", err)
	}
	gitIn(t, wt.Path(), "switch", "--quiet", "wfrun/ag_off")
	again, err := w.OpenWorktree(ctx, "ag_off", wt.Base())
	if err != nil {
		t.Fatal(err)
	}
	if kept, err := again.Finish(ctx); err != nil || kept != nil {
		t.Fatalf("Finish = %+v, %v; want the unchanged worktree removed", kept, err)
	}
}

func TestAWorkspaceThatIsItselfALinkedWorktreeGetsWorktrees(t *testing.T) {
	t.Parallel()
	w := repo(t, Config{})
	linked := filepath.Join(t.TempDir(), "linked")
	gitIn(t, w.Root(), "worktree", "add", "--quiet", "-b", "side", linked)
	lw, err := New(Config{Root: linked})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	wt, err := lw.AddWorktree(ctx, "ag_linked")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(wt.Path(), "src/app.txt")); err != nil || string(b) != "version 1\n" {
		t.Fatalf("the worktree's checkout: %q, %v", b, err)
	}
	if want := filepath.Join(w.Root(), ".git", "worktrees", "ag_linked"); wt.gitdir != want {
		t.Fatalf("the worktree's git folder is %s, want %s", wt.gitdir, want)
	}
	if kept, err := wt.Finish(ctx); err != nil || kept != nil {
		t.Fatalf("Finish = %+v, %v; want the unchanged worktree removed", kept, err)
	}
	if b := branches(t, w.Root()); strings.Contains(b, "wfrun/") {
		t.Fatalf("the branch is left: %q", b)
	}
}
