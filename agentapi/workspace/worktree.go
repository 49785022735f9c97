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
	"regexp"
	"strings"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/internal/nofollow"
	"github.com/wfrun/wfrun/internal/wferr"
)

// ErrNotRepository is the cause when a worktree is asked of a workspace
// that is not inside a git repository (or one without a commit).
var ErrNotRepository = errors.New("the workspace is not a git repository with a commit")

// WorktreesDir is where worktrees live, relative to the workspace root.
const WorktreesDir = ".wfrun/worktrees"

// BranchPrefix starts the name of every worktree's branch.
const BranchPrefix = "wfrun/"

// finishTimeout bounds Finish, which runs even when the child was
// cancelled.
const finishTimeout = 2 * time.Minute

// agentIDPattern is what an agent id must look like to name a folder and a
// branch: no separators, no "..", nothing git refuses in a ref.
var agentIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$`)

// Kept is a worktree left behind because its child changed something: the
// child's work is on Branch, checked out at Path. It is the worktree a
// provider reports in agentapi.Result, so a provider returns what Finish
// gives it as it is.
type Kept = agentapi.Worktree

// Worktree is one child's own git worktree: a checkout of the workspace
// repository's HEAD on a new branch, under WORKSPACE/.wfrun/worktrees/ID.
// Create it with Workspace.AddWorktree (or take an existing one up again
// with Workspace.OpenWorktree) and end it with Finish.
type Worktree struct {
	main   *Workspace // the workspace it was made from
	ws     *Workspace // rooted in the worktree
	id     string     // the agent id naming the folder and the branch
	path   string     // the worktree's top folder
	branch string
	base   string      // the commit it started from
	repo   *repository // the repository, as resolved before the child started
	gitdir string      // the worktree's own git folder: repo.common/worktrees/id
}

// AddWorktree creates a fresh git worktree for the child agentID: a new
// branch BranchPrefix+agentID at the repository's HEAD, checked out at
// WorktreesDir/agentID under the workspace root. The child's Workspace
// (Worktree.Workspace) is rooted there, in the same sub-folder of the
// repository as w, with w's mode.
//
// The first worktree of a repository adds "/…/.wfrun/worktrees/" to its
// .git/info/exclude, so that worktrees never show up as changes of the
// main checkout (the rest of .wfrun/, such as agent files, is untouched).
//
// Every folder and file wfrun creates or writes on the way (.wfrun/worktrees,
// the exclude file, the lock, git's worktrees and branch folders) is opened
// without following a symbolic link; one in the way, which a child may have
// planted, refuses the worktree with a sentence. The files are checked
// out on a shadow git folder (see shadow.go), so that no filter, hook or
// fsmonitor of the repository's configuration runs.
//
// A workspace outside any git repository, or in one without a commit, is
// an AGENT_START error wrapping ErrNotRepository. Several children may
// call AddWorktree at once.
func (w *Workspace) AddWorktree(ctx context.Context, agentID string) (*Worktree, error) {
	if err := checkAgentID(agentID); err != nil {
		return nil, err
	}
	r, sub, err := w.repository(
		"isolation 'worktree' needs the workspace to be inside a git repository, and %s is not: run `git init` there and commit, point --workspace at a repository, or drop isolation from the agent() call")
	if err != nil {
		return nil, err
	}
	base, err := git(ctx, r.gitdir, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return nil, wferr.Wrap(wferr.AgentStart, errors.Join(ErrNotRepository, err),
			"isolation 'worktree' starts a child from the repository's HEAD, and the repository %s has no commit yet: commit something first, or drop isolation from the agent() call", r.top)
	}
	if err := w.excludeWorktrees(r, sub); err != nil {
		return nil, wferr.Wrap(wferr.AgentStart, err, "cannot keep worktrees out of the repository's status: %v", err)
	}

	rel := filepath.Join(filepath.FromSlash(WorktreesDir), agentID)
	path := filepath.Join(w.root, rel)
	branch := BranchPrefix + agentID
	t := &Worktree{main: w, id: agentID, path: path, branch: branch, base: base, repo: r,
		gitdir: filepath.Join(r.common, "worktrees", agentID)}
	if err := nofollow.MkdirAll(w.root, filepath.FromSlash(WorktreesDir), 0o755); err != nil {
		err = linkRefusal("the worktrees folder", filepath.Dir(path), err)
		return nil, wferr.Wrap(wferr.AgentStart, err, "%v", err)
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		err = linkRefusal("the worktree", path, &fs.PathError{Op: "lstat", Path: path, Err: nofollow.ErrLink})
		return nil, wferr.Wrap(wferr.AgentStart, err, "%v", err)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, wferr.New(wferr.AgentStart,
			"cannot create the worktree %s on a new branch %s: the folder already exists; if an earlier run left it behind, remove it with `git worktree remove %s` and `git branch -D %s`", path, branch, path, branch)
	}
	unlock, err := w.lockWorktrees(r)
	if err != nil {
		return nil, wferr.Wrap(wferr.AgentStart, err, "cannot lock the repository's worktrees: %v", err)
	}
	for _, d := range []string{"worktrees", "refs/heads/wfrun", "logs/refs/heads/wfrun"} {
		if err := nofollow.MkdirAll(r.base, r.in(d), 0o755); err != nil {
			unlock()
			err = linkRefusal("the git folder", filepath.Join(r.common, filepath.FromSlash(d)), err)
			return nil, wferr.Wrap(wferr.AgentStart, err, "%v", err)
		}
	}
	if _, err := os.Lstat(t.gitdir); !errors.Is(err, fs.ErrNotExist) {
		unlock()
		return nil, wferr.New(wferr.AgentStart,
			"cannot create the worktree %s: git's folder for a worktree of that name, %s, already exists; if an earlier run left it behind, remove it with `git worktree prune` and `git branch -D %s`", path, t.gitdir, branch)
	}
	_, err = git(ctx, r.gitdir, "worktree", "add", "--quiet", "--no-checkout", "-b", branch, path, base)
	unlock()
	if err != nil {
		return nil, wferr.Wrap(wferr.AgentStart, err,
			"cannot create the worktree %s on a new branch %s: %v; if an earlier run left it behind, remove it with `git worktree remove %s` and `git branch -D %s`", path, branch, err, path, branch)
	}
	if err := t.made(ctx, sub); err != nil {
		_, _ = t.remove(ctx)
		return nil, wferr.Wrap(wferr.AgentStart, err, "cannot prepare the worktree %s: %v", path, err)
	}
	return t, nil
}

// made checks what `git worktree add` made, without trusting anything in
// it but the names wfrun chose: the worktree folder is still reached
// without a link, and git's folder for it is repo.common/worktrees/ID and
// points back at it. It then checks the base commit out and builds the
// child's Workspace.
func (t *Worktree) made(ctx context.Context, sub string) error {
	d, err := nofollow.OpenDir(t.main.root, filepath.Join(filepath.FromSlash(WorktreesDir), t.id))
	if err != nil {
		return linkRefusal("the worktree", t.path, err)
	}
	d.Close()
	back, err := nofollow.ReadFile(t.repo.base, t.repo.in("worktrees/"+t.id+"/gitdir"))
	if err != nil {
		return fmt.Errorf("git did not make its folder for the worktree where expected, %s: %w", t.gitdir, err)
	}
	if got := strings.TrimSpace(string(back)); got != filepath.Join(t.path, ".git") {
		return fmt.Errorf("git's folder %s belongs to %s, not to the worktree %s", t.gitdir, got, t.path)
	}
	if err := t.checkout(ctx); err != nil {
		return fmt.Errorf("cannot check the commit %s out: %w", t.base, err)
	}
	ws, err := t.workspace(sub)
	if err != nil {
		return err
	}
	t.ws = ws
	return nil
}

// OpenWorktree takes up again the worktree AddWorktree made for agentID,
// for a child that goes on working in it: a continued sub-agent resumed by
// a later process. base is the commit the worktree started from
// (Worktree.Base), against which Finish tells a changed worktree from an
// unchanged one. The worktree's git folder is the repository's
// worktrees/agentID, whatever its .git file says now. A worktree that is
// gone, reached through a link, or whose checkout is no longer on its
// branch, is an AGENT_START error that says what to do.
func (w *Workspace) OpenWorktree(ctx context.Context, agentID, base string) (*Worktree, error) {
	if err := checkAgentID(agentID); err != nil {
		return nil, err
	}
	r, sub, err := w.repository(
		"the worktree of " + agentID + " was made in a git repository, and the workspace %s is no longer in one: point --workspace at the repository it was started in")
	if err != nil {
		return nil, err
	}
	rel := filepath.Join(filepath.FromSlash(WorktreesDir), agentID)
	path := filepath.Join(w.root, rel)
	branch := BranchPrefix + agentID
	d, err := nofollow.OpenDir(w.root, rel)
	if err != nil {
		if errors.Is(err, nofollow.ErrLink) {
			err = linkRefusal("the worktree", path, err)
			return nil, wferr.Wrap(wferr.AgentStart, err, "%v", err)
		}
		return nil, wferr.Wrap(wferr.AgentStart, err,
			"the worktree %s of %s is gone (%v); its committed work, if any, is on the branch %s: start a new sub-agent, or restore the worktree with `git worktree add %s %s`", path, agentID, err, branch, path, branch)
	}
	d.Close()
	t := &Worktree{main: w, id: agentID, path: path, branch: branch, base: base, repo: r,
		gitdir: filepath.Join(r.common, "worktrees", agentID)}
	head, err := nofollow.ReadFile(r.base, r.in("worktrees/"+agentID+"/HEAD"))
	if got := strings.TrimPrefix(strings.TrimSpace(string(head)), "ref: refs/heads/"); err != nil || got != branch {
		return nil, wferr.New(wferr.AgentStart,
			"the worktree %s is no longer on its branch %s (it is on %q): check the branch out there again with `git -C %s switch %s`", path, branch, got, path, branch)
	}
	ws, err := t.workspace(sub)
	if err != nil {
		return nil, wferr.Wrap(wferr.AgentStart, err, "cannot prepare the worktree %s: %v", path, err)
	}
	t.ws = ws
	return t, nil
}

// repository returns the git repository around the workspace, resolved
// when the workspace was made (see repoCache and findRepository), and the
// workspace's folder inside its checkout. notRepo, a format with one %s for
// the workspace root, says what to do when the workspace is in no
// repository.
func (w *Workspace) repository(notRepo string) (*repository, string, error) {
	r, err := w.repo.get(w.root)
	if errors.Is(err, errGitOutside) {
		return nil, "", wferr.Wrap(wferr.AgentStart, err, "%v", err)
	}
	if err != nil {
		return nil, "", wferr.Wrap(wferr.AgentStart, errors.Join(ErrNotRepository, err), notRepo, w.root)
	}
	sub, err := filepath.Rel(r.top, w.root)
	if err != nil || strings.HasPrefix(sub, "..") {
		return nil, "", wferr.New(wferr.AgentStart, "the workspace %s is not inside its repository %s", w.root, r.top)
	}
	return r, sub, nil
}

// checkAgentID refuses an agent id that cannot name a folder and a branch.
func checkAgentID(agentID string) error {
	if !agentIDPattern.MatchString(agentID) || strings.HasSuffix(agentID, ".lock") || len(agentID) > 128 {
		return wferr.New(wferr.AgentStart, "the agent id %q cannot name a worktree: it must be letters, digits, '_', '-' and single dots, at most 128 characters", agentID)
	}
	return nil
}

// workspace builds the child's Workspace: rooted at the worktree's copy of
// the workspace folder, and writable, for sandboxed processes, also in the
// git folders that committing on the child's branch needs: the worktree's
// own git folder (HEAD, index), the shared object store, and the branch's
// ref and log folders. The rest of the repository's .git (config, hooks,
// other branches) stays read-only. Every one of these folders is reached
// without a symbolic link, so none of the paths handed to the sandbox
// leads out.
func (t *Worktree) workspace(sub string) (*Workspace, error) {
	r := t.repo
	root := filepath.Join(t.path, sub)
	if err := nofollow.MkdirAll(t.main.root, filepath.Join(filepath.FromSlash(WorktreesDir), t.id, sub), 0o755); err != nil {
		return nil, linkRefusal("the worktree folder", root, err) // a workspace folder that is not in HEAD
	}
	writable := []string{t.gitdir}
	for _, d := range []string{"worktrees/" + t.id, "objects", "refs/heads/wfrun", "logs/refs/heads/wfrun"} {
		if err := nofollow.MkdirAll(r.base, r.in(d), 0o755); err != nil {
			return nil, linkRefusal("the git folder", filepath.Join(r.common, filepath.FromSlash(d)), err)
		}
		if d != "worktrees/"+t.id {
			writable = append(writable, filepath.Join(r.common, filepath.FromSlash(d)))
		}
	}
	ws := t.main.clone()
	ws.root = root
	ws.writable = writable
	ws.worktree = true
	ws.gitdir = writable[0]
	ws.repo = &repoCache{repo: &repository{top: t.path, gitdir: t.gitdir, common: r.common, base: r.base, rel: r.rel}}
	return ws, nil
}

// excludeWorktrees adds the worktrees folder to the repository's
// info/exclude unless a line already names it. The file and its folder are
// opened without following a link.
func (w *Workspace) excludeWorktrees(r *repository, sub string) error {
	pattern := "/" + filepath.ToSlash(filepath.Join(sub, WorktreesDir)) + "/"
	pattern = strings.Replace(pattern, "/./", "/", 1)
	w.git.Lock()
	defer w.git.Unlock()
	name := filepath.Join(r.common, "info", "exclude")
	old, err := nofollow.ReadFile(r.base, r.in("info/exclude"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return linkRefusal("the exclude file", name, err)
	}
	for sc := bufio.NewScanner(bytes.NewReader(old)); sc.Scan(); {
		if strings.TrimSpace(sc.Text()) == pattern {
			return nil
		}
	}
	if err := nofollow.MkdirAll(r.base, r.in("info"), 0o755); err != nil {
		return linkRefusal("the exclude file's folder", filepath.Dir(name), err)
	}
	f, err := openRegular(r.base, r.in("info/exclude"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return linkRefusal("the exclude file", name, err)
	}
	add := "# wfrun: the worktrees of isolated children\n" + pattern + "\n"
	if len(old) > 0 && old[len(old)-1] != '\n' {
		add = "\n" + add
	}
	_, err = f.WriteString(add)
	return errors.Join(err, f.Close())
}

// Path returns the worktree's top folder.
func (t *Worktree) Path() string { return t.path }

// Branch returns the name of the worktree's branch.
func (t *Worktree) Branch() string { return t.branch }

// Base returns the commit the worktree started from.
func (t *Worktree) Base() string { return t.base }

// Workspace returns the child's workspace, rooted in the worktree.
func (t *Worktree) Workspace() *Workspace { return t.ws }

// Finish ends the worktree when its child has ended. A worktree whose
// checkout is clean (no change to a tracked file, no new untracked file
// that is not ignored) and whose HEAD and branch are still at the base
// commit is removed with its branch, and Finish returns nil. Anything else
// is kept: Finish returns where, for the run to report.
//
// The decision reads HEAD and the branch from the git folders resolved
// when the worktree was made, never from what the worktree's .git file
// says now, and takes the status on a shadow git folder, so that no
// program of the repository's configuration runs. A worktree
// that a link has replaced is kept and left alone, with an error.
//
// Finish runs even when ctx is cancelled (a cancelled child's worktree is
// still cleaned up or kept), bounded by a timeout of its own.
func (t *Worktree) Finish(ctx context.Context) (*Kept, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), finishTimeout)
	defer cancel()
	kept := &Kept{Path: t.path, Branch: t.branch}
	d, err := nofollow.OpenDir(t.main.root, filepath.Join(filepath.FromSlash(WorktreesDir), t.id))
	if err != nil {
		if errors.Is(err, nofollow.ErrLink) {
			return kept, fmt.Errorf("the worktree %s was replaced by a symbolic link, so wfrun leaves it alone; its branch %s is kept: %w", t.path, t.branch, err)
		}
		if unlock, lerr := t.main.lockWorktrees(t.repo); lerr == nil {
			_ = nofollow.RemoveAll(t.repo.base, t.repo.in("worktrees/"+t.id))
			unlock()
		}
		return kept, fmt.Errorf("the worktree %s is gone (%v); its branch %s is kept", t.path, err, t.branch)
	}
	d.Close()
	same, err := t.unchanged(ctx)
	if err != nil {
		return kept, fmt.Errorf("cannot tell whether the worktree %s changed, so it is kept: %w", t.path, err)
	}
	if !same {
		return kept, nil
	}
	return t.remove(ctx)
}

// remove deletes the worktree folder and git's folder for it (without
// following any link in them) and its branch, if the branch is still at
// the base commit.
func (t *Worktree) remove(ctx context.Context) (*Kept, error) {
	unlock, err := t.main.lockWorktrees(t.repo)
	if err != nil {
		return &Kept{Path: t.path, Branch: t.branch}, fmt.Errorf("cannot lock the repository's worktrees, so %s is kept: %w", t.path, err)
	}
	defer unlock()
	if err := nofollow.RemoveAll(t.main.root, filepath.Join(filepath.FromSlash(WorktreesDir), t.id)); err != nil {
		return &Kept{Path: t.path, Branch: t.branch}, fmt.Errorf("the worktree %s is unchanged but could not be removed, so it is kept: %w", t.path, err)
	}
	if err := nofollow.RemoveAll(t.repo.base, t.repo.in("worktrees/"+t.id)); err != nil {
		return nil, fmt.Errorf("the worktree %s was removed but git's folder for it, %s, could not be: %w; `git worktree prune` removes it", t.path, t.gitdir, err)
	}
	if _, err := t.repo.ref("refs/heads/" + t.branch); errors.Is(err, fs.ErrNotExist) {
		return nil, nil // the child deleted its branch
	}
	if _, err := git(ctx, t.repo.gitdir, "update-ref", "-d", "refs/heads/"+t.branch, t.base); err != nil {
		return nil, fmt.Errorf("the worktree %s was removed but its branch %s could not be: %w", t.path, t.branch, err)
	}
	return nil, nil
}
