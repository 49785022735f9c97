package workspace

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/wfrun/wfrun/internal/nofollow"
)

// The git commands that read or write a worktree's files (the checkout
// when the worktree is made, the status when its child has ended) convert
// file content, and git converts content through the filter drivers that
// the repository's configuration defines and its attributes name. A child
// can write both, and git cannot be told on its command line to ignore
// every filter. So these commands never see the repository's git folder:
// they run on a shadow git folder, a fresh temporary folder holding only
// what wfrun wrote (HEAD, a configuration of its own, the repository's
// info/exclude copied) and reaching the repository only through
// GIT_OBJECT_DIRECTORY (objects are data) and GIT_INDEX_FILE (the
// worktree's index). Without the repository's configuration no filter,
// textconv, fsmonitor, hook, include or alias exists for git to run,
// whatever the worktree's .gitattributes say.

// shadowConfig is the whole configuration of a shadow git folder, for a
// repository whose commits have ids like commit.
func shadowConfig(commit string) string {
	if len(commit) == 64 {
		return "[core]\n\trepositoryformatversion = 1\n\tbare = false\n[extensions]\n\tobjectFormat = sha256\n"
	}
	return "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
}

// inShadow runs git args on the worktree's files, on a shadow git folder
// whose HEAD is the commit head, and returns git's output.
func (t *Worktree) inShadow(ctx context.Context, head string, args ...string) (string, error) {
	dir, err := os.MkdirTemp("", "wfrun-git-")
	if err != nil {
		return "", fmt.Errorf("cannot make a shadow git folder: %w", err)
	}
	defer os.RemoveAll(dir)
	files := map[string]string{
		"HEAD":         head + "\n",
		"config":       shadowConfig(head),
		"info/exclude": t.repo.exclude(),
	}
	for _, d := range []string{"refs", "info"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o700); err != nil {
			return "", err
		}
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(content), 0o600); err != nil {
			return "", err
		}
	}
	env := map[string]string{
		"GIT_DIR":              dir,
		"GIT_WORK_TREE":        t.path,
		"GIT_INDEX_FILE":       filepath.Join(t.gitdir, "index"),
		"GIT_OBJECT_DIRECTORY": filepath.Join(t.repo.common, "objects"),
	}
	return runGit(ctx, t.path, env, nil, args...)
}

// checkout fills the worktree, made by `git worktree add --no-checkout`,
// and its index with the base commit.
func (t *Worktree) checkout(ctx context.Context) error {
	_, err := t.inShadow(ctx, t.base, "read-tree", "--reset", "-u", t.base)
	return err
}

// unchanged reports whether the worktree is as it started: HEAD and the
// branch at the base commit (a branch that is gone is no change), no
// change to a tracked file and no untracked file that .gitignore or the
// repository's info/exclude do not ignore. Submodules are not looked into:
// looking runs git inside them, on git folders a child controls.
func (t *Worktree) unchanged(ctx context.Context) (bool, error) {
	head, err := t.head()
	if err != nil {
		return false, err
	}
	if head != t.base {
		return false, nil
	}
	tip, err := t.repo.ref("refs/heads/" + t.branch)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if tip != "" && tip != t.base {
		return false, nil
	}
	// git reads the index by name; it must be the child's own file, not a
	// link to one of the user's.
	index, err := openRegular(t.repo.base, t.repo.in("worktrees/"+t.id+"/index"), os.O_RDONLY, 0)
	if err != nil {
		return false, err
	}
	index.Close()
	status, err := t.inShadow(ctx, t.base, "status", "--porcelain", "--untracked-files=all", "--ignore-submodules=all")
	if err != nil {
		return false, err
	}
	return status == "", nil
}

// head returns the commit the worktree's HEAD is at, read from its git
// folder as wfrun resolved it.
func (t *Worktree) head() (string, error) {
	b, err := nofollow.ReadFile(t.repo.base, t.repo.in("worktrees/"+t.id+"/HEAD"))
	if err != nil {
		return "", err
	}
	line := strings.TrimSpace(string(b))
	if name, ok := strings.CutPrefix(line, "ref: "); ok {
		return t.repo.ref(name)
	}
	return line, nil
}

// ref returns the commit the branch ref name (refs/heads/…) is at: its
// loose file in the shared git folder, else its line in packed-refs. A
// ref that exists in neither is fs.ErrNotExist.
func (r *repository) ref(name string) (string, error) {
	if !strings.HasPrefix(name, "refs/heads/") || strings.Contains(name, "..") {
		return "", fmt.Errorf("HEAD names %q, which is not a branch", name)
	}
	b, err := nofollow.ReadFile(r.base, r.in(name))
	if err == nil {
		return strings.TrimSpace(string(b)), nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	packed, err := nofollow.ReadFile(r.base, r.in("packed-refs"))
	if err != nil {
		return "", err
	}
	for sc := bufio.NewScanner(bytes.NewReader(packed)); sc.Scan(); {
		if id, ref, ok := strings.Cut(sc.Text(), " "); ok && ref == name {
			return id, nil
		}
	}
	return "", fmt.Errorf("no branch %s: %w", name, fs.ErrNotExist)
}

// exclude returns the repository's info/exclude, which git applies to
// every worktree; "" when it cannot be read.
func (r *repository) exclude() string {
	b, err := nofollow.ReadFile(r.base, r.in("info/exclude"))
	if err != nil {
		return ""
	}
	return string(b)
}
