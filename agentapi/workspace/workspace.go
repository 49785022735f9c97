package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// Config says which workspace a run's children work in. The zero value is
// the current directory in WorkspaceWrite mode without network.
type Config struct {
	// Root is the folder the children may touch; "" means the current
	// directory. It must exist and be a directory.
	Root string
	// Mode is the sandbox mode; "" means WorkspaceWrite.
	Mode Mode
	// Network lets sandboxed processes open TCP connections and listen on
	// TCP ports. Without it Landlock refuses both (read-only and
	// workspace-write; danger-full-access never restricts anything).
	Network bool
	// Hide lists absolute folders that every sandboxed command sees as
	// empty (an empty read-only tmpfs over each): wfrun's state folder,
	// with its journal keys, goes here. A folder that does not exist is
	// skipped.
	Hide []string
	// LandlockOnly accepts the weaker sandbox where the kernel gives no
	// namespaces: Landlock alone, without a PID namespace (a child's
	// survivors outlive it, /proc shows wfrun), without protected paths
	// and hidden folders. Without it such a machine refuses every
	// sandboxed command. It changes nothing where namespaces work.
	LandlockOnly bool
}

// Workspace is a root folder and a sandbox mode: the one place that
// decides which paths a child's tools may use and how its processes are
// confined. It is immutable and safe for concurrent use; Narrow and a
// worktree's Workspace return new values.
type Workspace struct {
	root    string // absolute, symlinks resolved
	mode    Mode
	network bool

	// writable are folders, besides root, that sandboxed processes may
	// write in: a worktree's own git folders.
	writable []string
	// worktree is set on a worktree's Workspace.
	worktree bool
	// gitdir is a worktree's own git folder ("" outside a worktree).
	gitdir string
	// hide are the folders sandboxed commands see empty (Config.Hide).
	hide []string
	// landlockOnly accepts Landlock without namespaces (Config.LandlockOnly).
	landlockOnly bool

	// git serialises this package's own edits of a repository's files
	// (info/exclude); shared by every Workspace derived from one New.
	git *sync.Mutex
	// repo is the git repository around root, resolved in New; shared
	// like git, and a worktree's own for a worktree's Workspace.
	repo *repoCache

	// abi reports the kernel's Landlock ABI version; a test hook.
	abi func() (int, error)
	// helper reports whether Init has run in this process; a test hook.
	helper func() bool
	// namespaces reports why this machine cannot give sandboxed commands
	// their namespaces, or nil; a test hook.
	namespaces func() error
}

// New checks cfg and returns its workspace. The root is made absolute and
// its symlinks are resolved once, here: every later check compares real
// paths against it.
func New(cfg Config) (*Workspace, error) {
	mode := cfg.Mode
	if mode == "" {
		mode = WorkspaceWrite
	}
	if !mode.Valid() {
		_, err := ParseMode(string(mode))
		return nil, err
	}
	dir := cfg.Root
	if dir == "" {
		dir = "."
	}
	root, err := realDir(dir)
	if err != nil {
		return nil, err
	}
	var hide []string
	for _, h := range cfg.Hide {
		if !filepath.IsAbs(h) {
			return nil, fmt.Errorf("the hidden folder %q is not an absolute path: give --sandbox-hide an absolute path", h)
		}
		if real, err := filepath.EvalSymlinks(h); err == nil {
			h = real
		}
		hide = append(hide, filepath.Clean(h))
	}
	return &Workspace{root: root, mode: mode, network: cfg.Network, git: new(sync.Mutex), repo: newRepoCache(root),
		hide: hide, landlockOnly: cfg.LandlockOnly,
		abi: landlockABI, helper: helperAvailable, namespaces: namespacesAvailable}, nil
}

// realDir returns dir as an absolute path without symlinks, or an error
// that says why it cannot be a workspace.
func realDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("the workspace %q has no absolute path: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("the workspace %s cannot be used: %w; create it or point --workspace at an existing folder", abs, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return "", fmt.Errorf("the workspace %s cannot be used: %w", abs, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("the workspace %s is not a directory: point --workspace at a folder", abs)
	}
	return real, nil
}

// Root returns the workspace's folder: absolute, without symlinks.
func (w *Workspace) Root() string { return w.root }

// Mode returns the sandbox mode.
func (w *Workspace) Mode() Mode { return w.mode }

// Network reports whether sandboxed processes may use TCP.
func (w *Workspace) Network() bool { return w.network }

// Narrow returns the workspace with its mode narrowed to m (see
// Mode.Narrow); it never widens. A persona's permission mode goes here.
func (w *Workspace) Narrow(m Mode) *Workspace {
	if w.mode.Narrow(m) == w.mode {
		return w
	}
	c := w.clone()
	c.mode = w.mode.Narrow(m)
	return c
}

func (w *Workspace) clone() *Workspace {
	c := *w
	c.writable = slices.Clone(w.writable)
	c.hide = slices.Clone(w.hide)
	return &c
}
