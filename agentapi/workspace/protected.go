package workspace

import (
	"fmt"
	"path/filepath"
	"strings"
)

// protectedFiles are the protected names that are files; every other
// protected name is a folder (or, for .git, whatever it is on disk). The
// sandbox helper uses this to choose an empty file or an empty folder as
// the placeholder of a protected path that does not exist yet.
var protectedFiles = map[string]bool{"config": true, "config.worktree": true, "commondir": true, "gitdir": true}

// Protected returns the paths inside the workspace's writable folders that
// no child may change, absolute: what the user's own git, wfrun or Claude
// Code later reads or runs. For the root R:
//
//   - R/.git, whole, whether a folder, a file (a worktree's pointer to its
//     git folder) or missing (a child may not make the workspace a
//     repository). Not only its config and hooks: git also follows a
//     commondir file it finds there to another folder's config, and a file
//     of that name cannot be guarded by a placeholder (git refuses to run
//     when it exists at all), so the whole folder is read-only, as in
//     Codex's sandbox. A child commits in a worktree (isolation
//     'worktree'), not in the main checkout;
//   - R/.wfrun (run folders, worktrees, personas) and R/.claude;
//   - in a worktree, the config, config.worktree, commondir and gitdir
//     files of the worktree's own git folder (the rest of it, the index
//     and HEAD, stays writable for commits).
//
// A path is listed whether or not it exists: a child may not create it
// either. The sandbox helper mounts every listed path read-only for the
// processes a child starts; CheckWrite refuses the file tools' writes to
// them.
func (w *Workspace) Protected() []string {
	r := w.root
	out := []string{filepath.Join(r, ".git"), filepath.Join(r, ".wfrun"), filepath.Join(r, ".claude")}
	if w.gitdir != "" {
		for _, n := range []string{"config", "config.worktree", "commondir", "gitdir"} {
			out = append(out, filepath.Join(w.gitdir, n))
		}
	}
	return out
}

// CheckWrite refuses real, a real path (symlinks resolved, as Resolve
// returns it), when it is a protected path or lies under one (see
// Protected), with a sentence that names the protected path and says it is
// read-only to children. It does not check that real is inside the root:
// Resolve does.
func (w *Workspace) CheckWrite(real string) error {
	for _, p := range w.Protected() {
		if real == p || strings.HasPrefix(real, p+string(filepath.Separator)) {
			return fmt.Errorf("%s is protected: %s is read-only to children, because the user's git, wfrun or Claude Code reads or runs what is in it; write elsewhere in the workspace", real, p)
		}
	}
	return nil
}
