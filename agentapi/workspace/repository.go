package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/wfrun/wfrun/internal/nofollow"
)

// repository is where a workspace's git repository keeps its folders, as
// wfrun resolved them itself, from the workspace root upwards, before it
// gives any child a worktree. Every later git command and every file wfrun
// touches in the repository uses these paths: none is read back from a
// .git file, a gitdir or a commondir file that a child could have
// rewritten since.
type repository struct {
	top    string // the checkout's top folder, the one holding .git
	gitdir string // the checkout's own git folder
	common string // the git folder its worktrees share

	// base is a folder no child can change the way to (the workspace root
	// when common is inside it, else common itself), and rel is common
	// beneath it: wfrun opens common's files with internal/nofollow from
	// base, so that a link planted anywhere in between stops it.
	base, rel string
}

// repoCache holds a workspace's repository, shared by every Workspace
// derived from one New. New resolves it at once, before any child runs;
// a workspace that was in no repository then resolves it at its first
// worktree, and only accepts one whose git folders are inside the
// workspace (a child may have made it, and wfrun writes only where the
// child could have).
type repoCache struct {
	mu   sync.Mutex
	repo *repository
}

// newRepoCache resolves the repository around root, if there is one now.
func newRepoCache(root string) *repoCache {
	r, err := findRepository(root)
	if err != nil {
		r = nil
	}
	return &repoCache{repo: r}
}

// get returns the repository, resolving it now if New found none.
func (c *repoCache) get(root string) (*repository, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.repo != nil {
		return c.repo, nil
	}
	r, err := findRepository(root)
	if err != nil {
		return nil, err
	}
	for _, d := range []string{r.gitdir, r.common} {
		if rel, err := filepath.Rel(root, d); err != nil || strings.HasPrefix(rel, "..") {
			return nil, fmt.Errorf("the workspace was in no git repository when wfrun started, and the one found now has its git folder %s outside the workspace, so a child may have pointed it there: start wfrun again in the repository you mean: %w", d, errGitOutside)
		}
	}
	c.repo = r
	return r, nil
}

// in returns name (slash separated, relative to common) beneath base.
func (r *repository) in(name string) string {
	return filepath.Join(r.rel, filepath.FromSlash(name))
}

// errGitOutside is the cause when a repository that appeared after New
// keeps its git folder outside the workspace.
var errGitOutside = errors.New("a git folder outside the workspace")

// errNoGit is the cause when no folder from the root up holds a .git.
var errNoGit = errors.New("no .git in the workspace or any folder above it")

// findRepository resolves the repository around root (absolute, without
// symbolic links) the way git finds it: the nearest folder from root up
// holding a .git, which is the git folder or a file naming it ("gitdir:
// PATH"); the shared git folder is the one a commondir file names, or the
// git folder itself.
func findRepository(root string) (*repository, error) {
	top := root
	for {
		if _, err := os.Lstat(filepath.Join(top, ".git")); err == nil {
			break
		}
		parent := filepath.Dir(top)
		if parent == top {
			return nil, errNoGit
		}
		top = parent
	}
	dotgit := filepath.Join(top, ".git")
	fi, err := os.Stat(dotgit)
	if err != nil {
		return nil, err
	}
	gitdir := dotgit
	if !fi.IsDir() {
		if gitdir, err = pointer(dotgit, "gitdir: ", top); err != nil {
			return nil, err
		}
	}
	if gitdir, err = filepath.EvalSymlinks(gitdir); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(filepath.Join(gitdir, "HEAD")); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a git folder: it has no HEAD file", gitdir)
	}
	common := gitdir
	if _, err := os.Lstat(filepath.Join(gitdir, "commondir")); err == nil {
		if common, err = pointer(filepath.Join(gitdir, "commondir"), "", gitdir); err != nil {
			return nil, err
		}
		if common, err = filepath.EvalSymlinks(common); err != nil {
			return nil, err
		}
	}
	r := &repository{top: top, gitdir: gitdir, common: common, base: common, rel: "."}
	if rel, err := filepath.Rel(root, common); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
		r.base, r.rel = root, rel
	}
	return r, nil
}

// pointer reads a small file holding a path after prefix (a .git file, a
// commondir file) and returns the path, made absolute from dir. The file
// is opened without blocking and must be a regular file.
func pointer(file, prefix, dir string) (string, error) {
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", file)
	}
	b, err := io.ReadAll(io.LimitReader(f, 4097))
	if err != nil {
		return "", err
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	p, ok := strings.CutPrefix(strings.TrimSpace(string(line)), prefix)
	if !ok || p == "" || len(b) > 4096 {
		return "", fmt.Errorf("%s does not name a git folder", file)
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return p, nil
}

// linkRefusal is the sentence for a file wfrun would have written through
// a symbolic link (or into something that is not a plain folder or file).
func linkRefusal(what, name string, err error) error {
	if errors.Is(err, nofollow.ErrLink) {
		return fmt.Errorf("%s %s is, or is reached through, a symbolic link, which a child may have planted to make wfrun write outside the workspace, so wfrun will not write there: remove the link and check what it points at (%w)", what, name, err)
	}
	if errors.Is(err, errNotRegular) {
		return fmt.Errorf("%s %s is not a regular file, which a child may have planted, so wfrun will not write there: remove it (%w)", what, name, err)
	}
	return fmt.Errorf("cannot write %s %s: %w", what, name, err)
}

// errNotRegular is the cause when a file wfrun opens to write is a named
// pipe, a device or a folder.
var errNotRegular = errors.New("not a regular file")

// openRegular opens base/rel with nofollow, without blocking on a named
// pipe, and refuses anything but a regular file.
func openRegular(base, rel string, flag int, perm fs.FileMode) (*os.File, error) {
	f, err := nofollow.OpenFile(base, rel, flag|syscall.O_NONBLOCK, perm)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &fs.PathError{Op: "open", Path: f.Name(), Err: errNotRegular}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
