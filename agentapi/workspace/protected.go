package workspace

import (
	"fmt"
	"path/filepath"
)

// protectedInRoot are the paths under the root a child never writes, with
// all they contain: the repository's git folder (or a worktree's pointer
// file), and wfrun's and Claude Code's own folders. The parts of .git that
// git runs or reads are listed besides, though .git covers them, for a
// caller that looks for a file by its identity (a hard link to
// .git/config is .git/config).
var protectedInRoot = []string{".git", ".git/config", ".git/config.worktree", ".git/hooks", ".git/info", ".git/modules", ".wfrun", ".claude"}

// protectedFiles are the protected names that are files; every other
// protected name is a folder (or, for .git, whatever it is on disk). The
// sandbox helper uses this to choose an empty file or an empty folder as
// the placeholder of a protected path that does not exist yet.
var protectedFiles = map[string]bool{"config": true, "config.worktree": true, "commondir": true, "gitdir": true}

// gitdirFiles are the files of a worktree's own git folder that say where
// its repository is and how git behaves there.
var gitdirFiles = []string{"config", "config.worktree", "commondir", "gitdir"}

// Protected returns the absolute paths a child must never write, even where
// it may write around them: what the user's own git, wfrun or Claude Code
// later reads or runs. For the root R:
//
//   - R/.git, whole, whether a folder, a file (a worktree's pointer to its
//     git folder) or missing (a child may not make the workspace a
//     repository). Not only its config, hooks, info and modules: git also
//     follows a commondir file it finds there to another folder's config,
//     and a file of that name cannot be guarded by a placeholder (git
//     refuses to run while anything of that name exists), so the whole
//     folder is read-only, as in Codex's sandbox. A child commits in a
//     worktree (isolation 'worktree'), not in the main checkout;
//   - R/.wfrun (run folders, worktrees, personas) and R/.claude;
//   - in a worktree, the config, config.worktree, commondir and gitdir
//     files of the worktree's own git folder (the rest of it, the index
//     and HEAD, stays writable for commits).
//
// The parts of .git that git runs or reads are listed besides (see
// protectedInRoot). A folder protects everything under it. A path is
// listed whether or not
// it exists: a child may not create it either. The sandbox helper mounts
// every listed path read-only for the processes a child starts; CheckWrite
// refuses the file tools' writes to them.
func (w *Workspace) Protected() []string {
	out := make([]string, 0, len(protectedInRoot)+len(gitdirFiles))
	for _, p := range protectedInRoot {
		out = append(out, filepath.Join(w.root, filepath.FromSlash(p)))
	}
	if w.gitdir != "" {
		for _, f := range gitdirFiles {
			out = append(out, filepath.Join(w.gitdir, f))
		}
	}
	return out
}

// CheckWrite refuses, with a sentence that names the protected path, a
// write to real (a result of Resolve: absolute, without symbolic links)
// when it is a protected path or inside one (see Protected). It does not
// check that real is inside the root: Resolve does.
func (w *Workspace) CheckWrite(real string) error {
	real = filepath.Clean(real)
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

// outermost returns the paths of ps that are inside no other of them: what
// the sandbox must mount, since a mount of a folder covers what is in it.
func outermost(ps []string) []string {
	var out []string
	for _, p := range ps {
		covered := false
		for _, q := range ps {
			if q != p && within(q, p) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, p)
		}
	}
	return out
}
