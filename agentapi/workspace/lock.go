package workspace

import (
	"os"
	"syscall"
)

// lockFile is where, in a repository's shared git folder, wfrun takes its
// lock around adding and removing worktrees.
const lockFile = "wfrun-worktrees.lock"

// lockWorktrees serialises adding and removing worktrees of one
// repository. Git itself does not: a `git worktree add` reads every other
// worktree's metadata and fails on one that a concurrent add has only half
// written. The lock is this Workspace's mutex (children of one engine) and
// an flock on a file in the shared git folder (other wfrun processes on the
// same repository); the returned function releases both. The lock file is
// opened without following a symbolic link and must be a regular file.
func (w *Workspace) lockWorktrees(r *repository) (func(), error) {
	w.git.Lock()
	f, err := openRegular(r.base, r.in(lockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		w.git.Unlock()
		return nil, linkRefusal("the lock file", r.common+string(os.PathSeparator)+lockFile, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		w.git.Unlock()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
		w.git.Unlock()
	}, nil
}
