package workspace

import (
	"fmt"
	"os"
	"path/filepath"
)

// protectedInRoot are the paths under the root a child never writes, with
// all they contain: the repository's configuration, hooks and excludes
// (git runs them or reads them on wfrun's behalf), its submodules' git
// folders, and wfrun's and Claude Code's own folders.
var protectedInRoot = []string{
	".git/config",
	".git/config.worktree",
	".git/hooks",
	".git/info",
	".git/modules",
	".wfrun",
	".claude",
}

// gitdirFiles are the files of a worktree's own git folder that say where
// its repository is and how git behaves there.
var gitdirFiles = []string{"config", "config.worktree", "commondir", "gitdir"}

// Protected returns the absolute paths a child must never write, even where
// it may write around them: in the root, .git/config, .git/config.worktree,
// .git/hooks, .git/info, .git/modules, .git itself when it is a file (a
// worktree's pointer to its git folder), .wfrun and .claude; and for a
// worktree's workspace the config, config.worktree, commondir and gitdir
// files of its own git folder. A folder protects everything under it. The
// paths need not exist.
func (w *Workspace) Protected() []string {
	out := make([]string, 0, len(protectedInRoot)+1+len(gitdirFiles))
	for _, p := range protectedInRoot {
		out = append(out, filepath.Join(w.root, filepath.FromSlash(p)))
	}
	if fi, err := os.Lstat(filepath.Join(w.root, ".git")); err == nil && !fi.IsDir() {
		out = append(out, filepath.Join(w.root, ".git"))
	}
	if w.worktree && len(w.writable) > 0 {
		own := w.writable[0] // the worktree's own git folder (see Worktree.workspace)
		for _, f := range gitdirFiles {
			out = append(out, filepath.Join(own, f))
		}
	}
	return out
}

// CheckWrite refuses, with a sentence that names the protected path, a
// write to real (a result of Resolve: absolute, without symbolic links) when it is
// a protected path or inside one (see Protected). The root's .git itself
// is refused also where it is a folder or does not exist yet: a .git file
// written by a child would point git, run by wfrun, at a repository the
// child made.
func (w *Workspace) CheckWrite(real string) error {
	real = filepath.Clean(real)
	if dotGit := filepath.Join(w.root, ".git"); real == dotGit {
		return protectedError(real, dotGit)
	}
	for _, p := range w.Protected() {
		if within(p, real) {
			return protectedError(real, p)
		}
	}
	return nil
}

func protectedError(real, p string) error {
	return fmt.Errorf("%s is protected: %s is read-only to children in every sandbox mode, because the user's git, wfrun or Claude Code reads or runs what is in it; write elsewhere in the workspace", real, p)
}
