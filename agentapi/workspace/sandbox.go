package workspace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"github.com/wfrun/wfrun/agentapi/internal/proc"
)

// ErrNoHelper is the cause when a sandboxed command is refused because the
// program never called Init.
var ErrNoHelper = errors.New("the sandbox helper is not available")

// ErrNoLandlock is the cause when a sandboxed command is refused because
// the kernel cannot enforce the mode's rules.
var ErrNoLandlock = errors.New("the kernel cannot enforce the sandbox")

// ErrNoNamespaces is the cause when a sandboxed command is refused because
// the kernel cannot give it the namespaces of the full sandbox and
// Config.LandlockOnly was not set.
var ErrNoNamespaces = errors.New("the kernel cannot give sandboxed commands their namespaces")

// helperStatus is the exit status of a helper that refused to run the
// command; the command itself never ran.
const helperStatus = 125

// policy is what the helper enforces on itself before it executes the
// command. It travels as JSON in the helper's arguments.
type policy struct {
	Mode    Mode     `json:"mode"`    // for the helper's messages
	Write   []string `json:"write"`   // folders writable besides the device files
	Network bool     `json:"network"` // TCP connect and bind allowed

	// NS builds the namespaces (user, PID, mount, IPC, and net without
	// Network) before Landlock; false only under Config.LandlockOnly on a
	// machine without them. The fields below need NS.
	NS bool `json:"ns,omitempty"`
	// See are folders that stay visible even under the private /tmp: the
	// workspace root (also in read-only mode) and the writable folders.
	See []string `json:"see,omitempty"`
	// Protect are the paths mounted read-only (Workspace.Protected).
	Protect []string `json:"protect,omitempty"`
	// Hide are folders covered by an empty read-only tmpfs.
	Hide []string `json:"hide,omitempty"`
	// UID and GID are wfrun's user and group, which the helper maps onto
	// themselves in its user namespace.
	UID int `json:"uid,omitempty"`
	GID int `json:"gid,omitempty"`
}

// neededABI is the Landlock ABI the rules need: 3 for writes (truncate(2)
// is restricted only from ABI 3 on, so with less a file outside could be
// emptied), 4 when TCP must be refused too.
func neededABI(network bool) int {
	if network {
		return 3
	}
	return 4
}

// Confine returns the program and arguments that run path with argv (argv[0]
// included) under the workspace's sandbox mode; the caller starts them with
// the command's environment, in the folder it chooses, and, for the fast
// path, with SysProcAttr's attributes.
//
//   - DangerFullAccess: path and argv unchanged.
//   - WorkspaceWrite: the helper (this executable, re-executed with
//     HelperArg) runs as the init of new user, PID, mount and IPC
//     namespaces (and a network namespace without Config.Network): the
//     host is mounted read-only but for the root, the folders a worktree
//     needs and tmp (when not ""); the protected paths are read-only and
//     the hidden folders empty; /proc is the namespace's own, /tmp and
//     /dev/shm private. It then drops every capability, applies Landlock
//     with the same writable folders, starts path, and when path ends
//     kills whatever path left behind.
//   - ReadOnly: the same with nothing writable.
//
// In both sandboxed modes only a few device files (/dev/null, /dev/zero,
// /dev/full, /dev/random, /dev/urandom) are writable besides, reads and
// execution are allowed everywhere else, and TCP is refused unless
// Config.Network is set. The error, when the command cannot be confined,
// wraps ErrNoHelper (Init was not called), ErrNoLandlock (the kernel lacks
// what the rules need) or ErrNoNamespaces (no namespaces, and
// Config.LandlockOnly not set); the command must then not run at all.
func (w *Workspace) Confine(path string, argv []string, tmp string) (string, []string, error) {
	if !w.mode.Sandboxed() {
		return path, argv, nil
	}
	ns, err := w.checkSandbox()
	if err != nil {
		return "", nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return "", nil, fmt.Errorf("sandboxed commands are refused: wfrun cannot find its own executable to start the sandbox helper (%v); run with --sandbox danger-full-access to opt out of the sandbox: %w", err, ErrNoHelper)
	}
	pol := policy{Mode: w.mode, Network: w.network}
	if w.mode == WorkspaceWrite {
		pol.Write = append([]string{w.root}, w.writable...)
		if tmp != "" {
			pol.Write = append(pol.Write, tmp)
		}
	}
	if ns {
		pol.NS = true
		pol.UID, pol.GID = os.Getuid(), os.Getgid()
		pol.See = append([]string{w.root}, pol.Write...)
		pol.Hide = w.hide
		if w.mode == WorkspaceWrite {
			pol.Protect = outermost(w.Protected())
		}
	}
	enc, err := json.Marshal(pol)
	if err != nil {
		return "", nil, err
	}
	args := append([]string{exe, HelperArg, sandboxWord, string(enc), path}, argv...)
	return exe, args, nil
}

// CheckSandbox reports why sandboxed commands would be refused in this
// workspace, or nil when they can run (and always in DangerFullAccess). A
// caller may use it to refuse early, before it builds a command.
func (w *Workspace) CheckSandbox() error {
	_, err := w.checkSandbox()
	return err
}

// checkSandbox is CheckSandbox, and reports besides whether the command
// gets its namespaces (false: Landlock alone, which LandlockOnly allowed),
// from the one answer of the probe that decided.
func (w *Workspace) checkSandbox() (ns bool, err error) {
	if !w.mode.Sandboxed() {
		return false, nil
	}
	if !w.helper() {
		return false, fmt.Errorf("sandboxed commands are refused: the %s sandbox starts each command through a helper mode of this program, and this program did not call workspace.Init() (engine.Init() in programs that embed wfrun's engine) at the top of main; add that call, or run with --sandbox danger-full-access to opt out of the sandbox: %w", w.mode, ErrNoHelper)
	}
	need := neededABI(w.network)
	abi, err := w.abi()
	if err != nil || abi < need {
		return false, landlockRefusal(w.mode, w.network, abi, err)
	}
	nsErr := w.namespaces()
	if nsErr != nil && !w.landlockOnly {
		return false, fmt.Errorf("sandboxed commands are refused: the %s sandbox runs each command in namespaces of its own (user, PID, mount, IPC, network), so that it cannot read wfrun's secrets, outlive its call or change protected files, and this machine cannot create them (%v); allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or user.max_user_namespaces above 0, or the AppArmor restriction lifted), or accept the weaker Landlock-only sandbox with --sandbox-landlock-only, or opt out with --sandbox danger-full-access: %w",
			w.mode, nsErr, ErrNoNamespaces)
	}
	return nsErr == nil, nil
}

// LandlockOnly reports whether sandboxed commands run under Landlock alone:
// Config.LandlockOnly was set and this machine gives no namespaces.
func (w *Workspace) LandlockOnly() bool {
	return w.mode.Sandboxed() && w.landlockOnly && w.namespaces() != nil
}

// landlockRefusal is the sentence for a kernel that cannot enforce mode.
func landlockRefusal(mode Mode, network bool, abi int, err error) error {
	need := neededABI(network)
	have := fmt.Sprintf("this kernel's Landlock ABI is %d", abi)
	fix := "run on Linux " + kernelFor(need) + " or later"
	if err != nil {
		have = fmt.Sprintf("this kernel has no Landlock (%v)", err)
		fix = "run on a kernel with Landlock enabled (Linux " + kernelFor(need) + " or later, with landlock in its lsm= list)"
	}
	what := "confine writes and refuse TCP"
	if network {
		what = "confine writes"
	}
	return fmt.Errorf("sandboxed commands are refused: the %s sandbox needs Landlock ABI %d or later to %s, and %s, so a command would run unconfined; %s, or opt out with --sandbox danger-full-access, which runs commands without any sandbox: %w",
		mode, need, what, have, fix, ErrNoLandlock)
}

// kernelFor names the first Linux release with Landlock ABI abi.
func kernelFor(abi int) string {
	switch abi {
	case 3:
		return "6.2"
	case 4:
		return "6.7"
	}
	return "6.7"
}

// sandboxMain is the sandbox helper: args are the policy as JSON, the
// program's path and its argv. It restricts the process and executes the
// program, so on success it never returns; on failure it says why and
// returns helperStatus, and the program never runs.
func sandboxMain(args []string, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "wfrun sandbox: "+format+"; the command was not run\n", a...)
		return helperStatus
	}
	if len(args) < 3 {
		return fail("the helper needs a policy, a program and its argv (it is started by wfrun itself, not by hand)")
	}
	var pol policy
	if err := json.Unmarshal([]byte(args[0]), &pol); err != nil {
		return fail("the policy %q is not valid: %v", args[0], err)
	}
	path, argv := args[1], args[2:]
	if !filepath.IsAbs(path) || slices.ContainsFunc(pol.Write, func(d string) bool { return !filepath.IsAbs(d) }) {
		return fail("the program and the writable folders must be absolute paths")
	}
	if pol.NS {
		if os.Getpid() != 1 {
			// Started without the namespaces (a caller that did not use
			// SysProcAttr): start the helper again inside them and wait.
			return spawnInNamespaces(pol, stderr)
		}
		return nsInit(pol, path, argv, stderr)
	}
	if err := restrictSelf(pol); err != nil {
		return fail("%v", err)
	}
	if err := installSeccomp(pol.Mode == ReadOnly); err != nil { // Landlock alone: see seccomp_linux.go
		return fail("%v", err)
	}
	err := syscall.Exec(path, argv, os.Environ())
	return fail("cannot execute %s: %v", path, err)
}

// Env returns variables that processes in this workspace need besides
// their ordinary environment. In ReadOnly, git is told not to take its
// optional locks (`git status` would otherwise try to refresh the index).
// In a worktree, git's automatic garbage collection is off: it would
// rewrite the shared repository, which is not the child's to write.
func (w *Workspace) Env() map[string]string {
	env := map[string]string{}
	if w.mode == ReadOnly {
		env["GIT_OPTIONAL_LOCKS"] = "0"
	}
	if w.worktree {
		env["GIT_CONFIG_COUNT"] = "1"
		env["GIT_CONFIG_KEY_0"] = "gc.auto"
		env["GIT_CONFIG_VALUE_0"] = "0"
	}
	return env
}

// CommandEnv is the whole environment of a command a child runs in the
// workspace (a Bash call, a terminal an agent asked for): wfrun's minimal
// inherited set (PATH, HOME, the locale, …; never API keys), non-interactive
// pagers, TMPDIR and a cache folder in tmp, the child's temp folder ("" in
// ReadOnly, where nothing is writable), what Env asks for, and last extra,
// whose names the caller has checked.
func (w *Workspace) CommandEnv(tmp string, extra map[string]string) []string {
	set := map[string]string{"PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0", "TERM": "dumb", "NO_COLOR": "1"}
	if tmp != "" {
		set["TMPDIR"] = tmp
		if w.mode == WorkspaceWrite {
			set["XDG_CACHE_HOME"] = filepath.Join(tmp, ".cache") // ~/.cache is not writable
		}
	}
	maps.Copy(set, w.Env())
	maps.Copy(set, extra)
	return proc.Environ(nil, set)
}
