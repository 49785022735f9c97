// Package workspace is what a child of a real provider may touch: a root
// folder, a sandbox mode, the check that keeps every path of a tool inside
// the root, the OS sandbox that confines every process a child starts, and
// the git worktrees of isolated children.
//
// # The model
//
// A Workspace is a root (absolute, symlinks resolved once in New) and a
// Mode, a closed vocabulary named after Codex's: ReadOnly, WorkspaceWrite
// (the default) and DangerFullAccess. Modes are ordered; Narrow and
// Mode.Narrow only ever narrow, so a persona's permission mode or a call
// can take rights away from a run, never add them.
//
// Resolve is the one path check: a path is read from the root, every
// symbolic link is followed (also for a path that does not exist yet, so
// that a dangling link pointing out cannot be written through), and the
// real path must end inside the root; ErrOutside otherwise. It checks names,
// not open files: the tools open through os.Root, which refuses an escape
// at open time, and processes are confined by the kernel.
//
// CheckWrite is the second check, for writes: the paths Protected lists
// (the root's .git, whole, .wfrun, .claude, and a worktree's git pointers)
// are refused with a sentence, in every mode; the sandbox mounts the same
// paths read-only for processes.
//
// # The OS sandbox
//
// Confine turns a command into one that runs under the mode: unchanged in
// DangerFullAccess, else through the sandbox helper, this same executable
// re-executed with the hidden argument HelperArg, which the caller starts
// with SysProcAttr's clone flags. The helper is the init of new user,
// PID, mount and IPC namespaces (and a network namespace unless
// Config.Network): it maps its user onto itself, makes the host
// read-only, mounts the namespace's own /proc and private /tmp and
// /dev/shm, puts the root and the writable folders back (writable in
// WorkspaceWrite), mounts the protected paths (Protected: .git/config,
// hooks, .wfrun, .claude, a worktree's pointer files) read-only, creating
// a locked placeholder for a missing one, and covers the hidden folders
// (Config.Hide) with an empty tmpfs. On a thread of its own it then drops
// every capability, sets no_new_privs, applies the strictest Landlock
// ruleset the kernel supports (writes only in the writable folders and a
// few device files, TCP refused unless Config.Network, signals and
// abstract sockets scoped from ABI 6), and starts the command, which
// inherits all of it. It reaps every process of the namespace and, when
// the command ends, kills the rest, so nothing outlives the call. A
// caller that ignores SysProcAttr still gets the namespaces: the helper
// starts itself again inside them. CheckWrite refuses the file tools'
// writes to the same protected paths.
//
// Nothing ever runs less confined than the mode says: a kernel below
// Landlock ABI 4 (3 with Network) refuses every sandboxed command with
// ErrNoLandlock, a machine without user namespaces (probed once per
// process) with ErrNoNamespaces unless Config.LandlockOnly accepts
// Landlock alone (with a seccomp filter that refuses setsid, setpgid and
// ptrace, and metadata changes in ReadOnly), and a program that never
// called Init with ErrNoHelper;
// each sentence names the flag that is the way out. Layers reports which
// layers the machine gives (wfrun doctor).
//
// # The one piece of state: Init
//
// A program whose children run sandboxed commands calls Init first thing in
// main (wfrun through engine.Init, test binaries in TestMain). Started as
// the helper, Init applies the sandbox and runs the command; otherwise it
// makes the process non-dumpable (no child reads its environment or
// memory) and records that re-executing this binary reaches the helper.
// Without that record Confine refuses with ErrNoHelper and a sentence
// naming the call, rather than re-executing a program that would treat the
// helper's arguments as its own. Besides that record the package keeps one
// more piece of state, the result of the namespaces probe, made once per
// process. Dispatch adds further
// helper modes (the same entry will serve process isolation of whole runs).
//
// # Worktrees
//
// AddWorktree gives an isolated child a fresh `git worktree` of the
// repository's HEAD on branch wfrun/<agentId>, under
// WORKSPACE/.wfrun/worktrees/<agentId>, excluded from the main checkout's
// status through .git/info/exclude. Its Workspace is rooted there and may
// write, besides, exactly the git folders a commit on its own branch needs.
// Finish removes a worktree that is unchanged and has no new commit, and
// keeps any other, returning its Kept {path, branch}.
//
// # wfrun's own git
//
// A child can write the repository's .git (from the main workspace) and
// its worktree's .git file and git folder, so nothing there may decide
// what wfrun's own git runs or where wfrun writes. The repository's
// folders are resolved once, by wfrun, from the workspace root upwards
// (repository.go), and every later command names them explicitly; no
// .git, gitdir or commondir file is read back. Git runs as the real
// binary, with a minimal environment, without system or global
// configuration, and with every setting that runs a program switched off
// on its command line, and retried while another git process holds a
// lock (git.go). Commands that convert file content (the
// checkout, the status) never see the repository's configuration at all:
// they run on a shadow git folder of wfrun's own (shadow.go), so no
// filter, fsmonitor, hook or include a child wrote can run. Every file and
// folder wfrun writes in the workspace or the repository is opened with
// internal/nofollow: a symbolic link a child planted refuses the operation
// instead of redirecting it.
//
// # Place
//
// The package belongs to agentapi's provider layer: it imports agentapi
// (for the worktree a provider reports), agentapi's internal process
// supervision, internal/wferr, internal/nofollow, go-landlock,
// golang.org/x/sys/unix and the
// standard library, never runtime, engine, sandbox or cmd. Tools
// (agentapi/tools) and providers use it; the run side never does.
package workspace
