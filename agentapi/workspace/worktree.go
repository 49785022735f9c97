package workspace

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/wfrun/wfrun/agentapi"
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
	path   string     // the worktree's top folder
	branch string
	base   string // the commit it started from
	common string // the repository's shared git folder
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
// A workspace outside any git repository, or in one without a commit, is
// an AGENT_START error wrapping ErrNotRepository. Several children may
// call AddWorktree at once.
func (w *Workspace) AddWorktree(ctx context.Context, agentID string) (*Worktree, error) {
	if err := checkAgentID(agentID); err != nil {
		return nil, err
	}
	top, sub, common, err := w.repository(ctx,
		"isolation 'worktree' needs the workspace to be inside a git repository, and %s is not: run `git init` there and commit, point --workspace at a repository, or drop isolation from the agent() call")
	if err != nil {
		return nil, err
	}
	base, err := git(ctx, w.root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return nil, wferr.Wrap(wferr.AgentStart, errors.Join(ErrNotRepository, err),
			"isolation 'worktree' starts a child from the repository's HEAD, and the repository %s has no commit yet: commit something first, or drop isolation from the agent() call", top)
	}
	if err := w.excludeWorktrees(common, sub); err != nil {
		return nil, wferr.Wrap(wferr.AgentStart, err, "cannot keep worktrees out of the repository's status: %v", err)
	}

	path := filepath.Join(w.root, filepath.FromSlash(WorktreesDir), agentID)
	branch := BranchPrefix + agentID
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, wferr.Wrap(wferr.AgentStart, err, "cannot create %s: %v", filepath.Dir(path), err)
	}
	unlock, err := w.lockWorktrees(common)
	if err != nil {
		return nil, wferr.Wrap(wferr.AgentStart, err, "cannot lock the repository's worktrees: %v", err)
	}
	_, err = git(ctx, w.root, "worktree", "add", "--quiet", "-b", branch, path, base)
	unlock()
	if err != nil {
		return nil, wferr.Wrap(wferr.AgentStart, err,
			"cannot create the worktree %s on a new branch %s: %v; if an earlier run left it behind, remove it with `git worktree remove %s` and `git branch -D %s`", path, branch, err, path, branch)
	}
	t := &Worktree{main: w, path: path, branch: branch, base: base, common: common}
	ws, err := t.workspace(ctx, common, sub)
	if err != nil {
		_, _ = t.remove(ctx)
		return nil, wferr.Wrap(wferr.AgentStart, err, "cannot prepare the worktree %s: %v", path, err)
	}
	t.ws = ws
	return t, nil
}

// OpenWorktree takes up again the worktree AddWorktree made for agentID,
// for a child that goes on working in it: a continued sub-agent resumed by
// a later process. base is the commit the worktree started from
// (Worktree.Base), against which Finish tells a changed worktree from an
// unchanged one. A worktree that is gone, or whose checkout is no longer
// on its branch, is an AGENT_START error that says what to do.
func (w *Workspace) OpenWorktree(ctx context.Context, agentID, base string) (*Worktree, error) {
	if err := checkAgentID(agentID); err != nil {
		return nil, err
	}
	_, sub, common, err := w.repository(ctx,
		"the worktree of "+agentID+" was made in a git repository, and the workspace %s is no longer in one: point --workspace at the repository it was started in")
	if err != nil {
		return nil, err
	}
	path := filepath.Join(w.root, filepath.FromSlash(WorktreesDir), agentID)
	branch := BranchPrefix + agentID
	if _, err := os.Stat(path); err != nil {
		return nil, wferr.Wrap(wferr.AgentStart, err,
			"the worktree %s of %s is gone (%v); its committed work, if any, is on the branch %s: start a new sub-agent, or restore the worktree with `git worktree add %s %s`", path, agentID, err, branch, path, branch)
	}
	head, err := git(ctx, path, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil || head != branch {
		return nil, wferr.New(wferr.AgentStart,
			"the worktree %s is no longer on its branch %s (it is on %q): check the branch out there again with `git -C %s switch %s`", path, branch, head, path, branch)
	}
	t := &Worktree{main: w, path: path, branch: branch, base: base, common: common}
	ws, err := t.workspace(ctx, common, sub)
	if err != nil {
		return nil, wferr.Wrap(wferr.AgentStart, err, "cannot prepare the worktree %s: %v", path, err)
	}
	t.ws = ws
	return t, nil
}

// repository finds the git repository around the workspace: its top folder
// (symlinks resolved), the workspace's folder inside it, and the git folder
// its worktrees share. notRepo, a format with one %s for the workspace
// root, says what to do when the workspace is in no repository.
func (w *Workspace) repository(ctx context.Context, notRepo string) (top, sub, common string, err error) {
	if top, err = git(ctx, w.root, "rev-parse", "--show-toplevel"); err != nil {
		return "", "", "", wferr.Wrap(wferr.AgentStart, errors.Join(ErrNotRepository, err), notRepo, w.root)
	}
	if top, err = filepath.EvalSymlinks(top); err != nil {
		return "", "", "", wferr.Wrap(wferr.AgentStart, err, "cannot resolve the repository folder: %v", err)
	}
	sub, err = filepath.Rel(top, w.root)
	if err != nil || strings.HasPrefix(sub, "..") {
		return "", "", "", wferr.New(wferr.AgentStart, "the workspace %s is not inside its repository %s", w.root, top)
	}
	if common, err = git(ctx, w.root, "rev-parse", "--path-format=absolute", "--git-common-dir"); err != nil {
		return "", "", "", wferr.Wrap(wferr.AgentStart, err, "cannot find the repository's git folder: %v", err)
	}
	return top, sub, common, nil
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
// other branches) stays read-only.
func (t *Worktree) workspace(ctx context.Context, common, sub string) (*Workspace, error) {
	own, err := git(ctx, t.path, "rev-parse", "--absolute-git-dir")
	if err != nil {
		return nil, err
	}
	root := filepath.Join(t.path, sub)
	if err := os.MkdirAll(root, 0o755); err != nil { // a workspace folder that is not in HEAD
		return nil, err
	}
	writable := []string{own, filepath.Join(common, "objects")}
	for _, d := range []string{"refs/heads/wfrun", "logs/refs/heads/wfrun"} {
		d = filepath.Join(common, filepath.FromSlash(d))
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
		writable = append(writable, d)
	}
	ws := t.main.clone()
	if ws.root, err = filepath.EvalSymlinks(root); err != nil {
		return nil, err
	}
	for i, d := range writable {
		if writable[i], err = filepath.EvalSymlinks(d); err != nil {
			return nil, err
		}
	}
	ws.writable = writable
	ws.worktree = true
	ws.gitdir = writable[0]
	return ws, nil
}

// excludeWorktrees adds the worktrees folder to the repository's
// info/exclude unless a line already names it.
func (w *Workspace) excludeWorktrees(common, sub string) error {
	pattern := "/" + filepath.ToSlash(filepath.Join(sub, WorktreesDir)) + "/"
	pattern = strings.Replace(pattern, "/./", "/", 1)
	w.git.Lock()
	defer w.git.Unlock()
	file := filepath.Join(common, "info", "exclude")
	old, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for sc := bufio.NewScanner(bytes.NewReader(old)); sc.Scan(); {
		if strings.TrimSpace(sc.Text()) == pattern {
			return nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
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
// Finish runs even when ctx is cancelled (a cancelled child's worktree is
// still cleaned up or kept), bounded by a timeout of its own.
func (t *Worktree) Finish(ctx context.Context) (*Kept, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), finishTimeout)
	defer cancel()
	kept := &Kept{Path: t.path, Branch: t.branch}
	if _, err := os.Stat(t.path); err != nil {
		if unlock, lerr := t.main.lockWorktrees(t.common); lerr == nil {
			_, _ = git(ctx, t.main.root, "worktree", "prune")
			unlock()
		}
		return kept, fmt.Errorf("the worktree %s is gone (%v); its branch %s is kept", t.path, err, t.branch)
	}
	status, err := git(ctx, t.path, "status", "--porcelain", "--untracked-files=all")
	if err != nil {
		return kept, fmt.Errorf("cannot tell whether the worktree %s changed, so it is kept: %w", t.path, err)
	}
	head, _ := git(ctx, t.path, "rev-parse", "--verify", "--quiet", "HEAD")
	tip, _ := git(ctx, t.main.root, "rev-parse", "--verify", "--quiet", "refs/heads/"+t.branch)
	if status != "" || head != t.base || (tip != "" && tip != t.base) {
		return kept, nil
	}
	return t.remove(ctx)
}

// remove deletes the worktree and its branch.
func (t *Worktree) remove(ctx context.Context) (*Kept, error) {
	unlock, err := t.main.lockWorktrees(t.common)
	if err != nil {
		return &Kept{Path: t.path, Branch: t.branch}, fmt.Errorf("cannot lock the repository's worktrees, so %s is kept: %w", t.path, err)
	}
	defer unlock()
	if _, err := git(ctx, t.main.root, "worktree", "remove", "--force", t.path); err != nil {
		return &Kept{Path: t.path, Branch: t.branch}, fmt.Errorf("the worktree %s is unchanged but could not be removed, so it is kept: %w", t.path, err)
	}
	if _, err := git(ctx, t.main.root, "branch", "-D", "--quiet", t.branch); err != nil {
		return nil, fmt.Errorf("the worktree %s was removed but its branch %s could not be: %w", t.path, t.branch, err)
	}
	return nil, nil
}
