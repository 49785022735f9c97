package workspace

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// nsFlags are the namespaces a sandboxed command's helper starts in: user
// (so that no privilege is needed), PID (its own /proc, and every process
// dies with the helper), IPC, and network unless TCP is allowed. The mount
// namespace is not among them: the helper makes it with unshare on the
// one thread that builds the view and starts the command, so that its
// other threads stay in the host's mount namespace, where the
// placeholders it made are no mount points and can be removed at the end
// without an unmount (which costs an RCU grace period).
func nsFlags(network bool) uintptr {
	f := uintptr(unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWIPC)
	if !network {
		f |= unix.CLONE_NEWNET
	}
	return f
}

// nsAttr starts a process in the namespaces flags. The process maps its
// user and group itself, first thing (mapSelf): a parent that is not
// root could not write the child's maps, since wfrun's own process is
// non-dumpable and so is a child until it executes. The capabilities that
// mapping and mounting need are carried through execve as ambient ones;
// the helper drops them before the command runs. The helper dies with its
// parent (SIGKILL, and a PID namespace's init takes every process of the
// namespace along).
func nsAttr(flags uintptr) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Cloneflags: flags, Pdeathsig: syscall.SIGKILL,
		AmbientCaps: []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP, unix.CAP_SETUID, unix.CAP_SETGID}}
}

// mapSelf maps the caller's host user and group onto themselves in its
// new user namespace, so that files keep their owners inside (and git its
// ownership checks); every other id shows as the overflow id.
func mapSelf(uid, gid int) error {
	for _, f := range []struct{ file, line string }{
		{"/proc/self/uid_map", fmt.Sprintf("%d %d 1\n", uid, uid)},
		{"/proc/self/setgroups", "deny"},
		{"/proc/self/gid_map", fmt.Sprintf("%d %d 1\n", gid, gid)},
	} {
		if err := os.WriteFile(f.file, []byte(f.line), 0); err != nil {
			return fmt.Errorf("cannot map the user in the new user namespace: %v", err)
		}
	}
	return nil
}

// SysProcAttr returns the attributes the program Confine returns must be
// started with (the caller adds its own, such as a process group): the
// new namespaces, so that the helper is their init from its first
// instruction. It is nil when Confine's program needs none: in
// DangerFullAccess and under Landlock alone. A caller that ignores it
// still gets the whole sandbox, for the price of one more start of the
// helper, which then creates the namespaces itself.
func (w *Workspace) SysProcAttr() *syscall.SysProcAttr {
	if !w.mode.Sandboxed() || w.namespaces() != nil {
		return nil
	}
	return nsAttr(nsFlags(w.network))
}

// The namespaces probe's answer, kept for the life of the process once it
// is known for good.
var (
	probeMu   sync.Mutex
	probeDone bool
	probeErr  error
)

// namespacesAvailable reports whether this machine gives a sandboxed
// command its namespaces and the mounts it needs: it starts the helper in
// them, with nothing to run. The answer is kept, unless the probe could
// not even start for a passing shortage (too many processes or
// namespaces at once), so that such a moment does not refuse every later
// command.
func namespacesAvailable() error {
	probeMu.Lock()
	defer probeMu.Unlock()
	if probeDone {
		return probeErr
	}
	err := probe(nsFlags(false), true)
	if err != nil && (errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.ENOMEM)) {
		return err
	}
	probeDone, probeErr = true, err
	return err
}

// probe starts the helper's probe mode in the namespaces flags; with
// mounts the probe also makes the sandbox's kinds of mounts.
func probe(flags uintptr, mounts bool) error {
	if !helperAvailable() {
		return errors.New("the sandbox helper is not available (workspace.Init was not called)")
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot find this executable: %v", err)
	}
	arg := "none"
	if mounts {
		arg = "mounts"
	}
	cmd := exec.Command(exe, HelperArg, probeWord, arg, fmt.Sprint(os.Getuid()), fmt.Sprint(os.Getgid()))
	cmd.Env = []string{}
	cmd.Dir = "/"
	cmd.SysProcAttr = nsAttr(flags)
	out, err := cmd.CombinedOutput()
	if err != nil {
		if msg := strings.TrimSpace(string(out)); msg != "" {
			return errors.New(msg)
		}
		return err // a start that failed wraps its errno
	}
	return nil
}

// probeMain is the helper's probe mode, inside fresh namespaces.
func probeMain(args []string, stderr io.Writer) int {
	if os.Getpid() != 1 || len(args) != 3 {
		fmt.Fprintln(stderr, "the probe runs in a new PID namespace, with what to probe, the user and the group")
		return 1
	}
	var uid, gid int
	if _, err := fmt.Sscan(args[1]+" "+args[2], &uid, &gid); err != nil {
		fmt.Fprintf(stderr, "bad user or group: %v\n", err)
		return 1
	}
	if err := mapSelf(uid, gid); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	if args[0] == "mounts" {
		runtime.LockOSThread() // never unlocked: the thread has a mount namespace of its own
		steps := []struct {
			what string
			do   func() error
		}{
			{"create a mount namespace", func() error { return unix.Unshare(unix.CLONE_NEWNS) }},
			{"make the mounts private", func() error { return unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, "") }},
			{"mount /proc of the new PID namespace", func() error {
				return unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "")
			}},
			{"mount a tmpfs", func() error { return unix.Mount("tmpfs", "/tmp", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777") }},
			{"make the host read-only", func() error {
				return unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY})
			}},
		}
		for _, s := range steps {
			if err := s.do(); err != nil {
				fmt.Fprintf(stderr, "cannot %s in a new user namespace: %v\n", s.what, err)
				return 1
			}
		}
	}
	return 0
}

// spawnInNamespaces is the helper started without the namespaces: it
// starts itself again in them, passes signals on, and exits as the
// command did.
func spawnInNamespaces(pol policy, stderr io.Writer) int {
	runtime.LockOSThread() // Pdeathsig is tied to the thread that starts the child
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "wfrun sandbox: cannot find this executable (%v); the command was not run\n", err)
		return helperStatus
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = nsAttr(nsFlags(pol.Network))
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "wfrun sandbox: cannot create the sandbox's namespaces (%v); the command was not run\n", err)
		return helperStatus
	}
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	_ = cmd.Wait()
	return exitCode(cmd.ProcessState.Sys().(syscall.WaitStatus))
}

// exitCode is a shell's status for ws: the exit status, or 128 plus the
// signal that ended the process (an init cannot die of its own signal).
func exitCode(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// nsInit is the helper as the init of the sandbox's namespaces: it builds
// the file system view, starts the command from a thread that has dropped
// every capability and entered the Landlock domain, reaps every process
// of the namespace, and when the command has ended kills what is left and
// removes the placeholders it made. It returns the command's status.
func nsInit(pol policy, path string, argv []string, stderr io.Writer) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "wfrun sandbox: "+format+"; the command was not run\n", a...)
		return helperStatus
	}
	if err := mapSelf(pol.UID, pol.GID); err != nil {
		return fail("%v", err)
	}
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	cwd, err := os.Getwd()
	if err != nil {
		return fail("cannot tell the working folder: %v", err)
	}
	// One thread builds the view in a mount namespace of its own, then
	// drops its capabilities, enters the Landlock domain and starts the
	// command, which inherits all of it. It never runs anything else (the
	// runtime starts no thread from a locked one) and is never unlocked.
	// The init's other threads stay in the host's mount namespace and keep
	// their capabilities, to remove the placeholders at the end.
	started := make(chan view, 1)
	go func() {
		runtime.LockOSThread()
		v := startInView(pol, cwd, path, argv)
		started <- v
		if v.err == nil {
			select {} // keep the thread: it is the command's parent
		}
	}()
	v := <-started
	defer release(v.held)
	if v.err != nil {
		return fail("%v", v.err)
	}
	pid := v.pid
	go func() {
		for s := range sigs {
			_ = syscall.Kill(-1, s.(syscall.Signal)) // every process of the namespace but this one
		}
	}()
	status := helperStatus
	for {
		var ws syscall.WaitStatus
		p, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			break // ECHILD: nothing is left
		}
		if p == pid {
			status = exitCode(ws)
			_ = syscall.Kill(-1, syscall.SIGKILL) // survivors: setsid, trap '' TERM, double forks
		}
	}
	return status
}

// view is what the thread that starts the command reports: the
// placeholders it holds, and the command's pid or why it did not start.
type view struct {
	held []placeholder
	pid  int
	err  error
}

// startInView runs on the locked thread that starts the command: a mount
// namespace of its own, the view, the working folder through the new
// mounts, no capability, the Landlock domain, and the command.
func startInView(pol policy, cwd, path string, argv []string) (v view) {
	if v.err = unix.Unshare(unix.CLONE_NEWNS); v.err != nil {
		v.err = fmt.Errorf("cannot create a mount namespace: %v", v.err)
		return v
	}
	if v.held, v.err = buildView(pol); v.err != nil {
		v.err = fmt.Errorf("cannot build the sandbox's file system: %v", v.err)
		return v
	}
	if v.err = unix.Chdir(cwd); v.err != nil {
		v.err = fmt.Errorf("cannot enter %s: %v", cwd, v.err)
		return v
	}
	if v.err = dropCapabilities(); v.err != nil {
		return v
	}
	if v.err = restrictSelf(pol); v.err != nil {
		return v
	}
	if v.pid, v.err = syscall.ForkExec(path, argv, &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, 1, 2}}); v.err != nil {
		v.err = fmt.Errorf("cannot execute %s: %v", path, v.err)
	}
	return v
}

// placeholder is a protected path the view mounted over: the helper holds
// a shared lock on it while its namespace lives, and removes it at the
// end if it created it, it is still empty, and no other helper holds it.
type placeholder struct {
	path    string
	fd      int
	created bool
	dir     bool
}

// buildView makes the sandbox's file system view, in order: mounts
// private to the namespace; the whole host read-only; /proc of the new PID
// namespace; private /tmp and /dev/shm; the root and the writable folders
// mounted again where they are (writable ones writable, also when under
// /tmp); protected paths read-only (placeholders for the
// missing ones whose parent is writable); hidden folders covered.
func buildView(pol policy) ([]placeholder, error) {
	see := slices.Clone(pol.See)
	slices.SortFunc(see, func(a, b string) int { return len(a) - len(b) }) // parents first
	see = slices.Compact(see)
	fds := make([]int, len(see))
	for i, d := range see {
		fd, err := unix.Open(d, unix.O_PATH|unix.O_CLOEXEC|unix.O_DIRECTORY, 0)
		if err != nil {
			return nil, fmt.Errorf("cannot open %s: %v", d, err)
		}
		fds[i] = fd
	}
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return nil, fmt.Errorf("cannot make the mounts private: %v", err)
	}
	if err := setattr("/", unix.AT_RECURSIVE, unix.MOUNT_ATTR_RDONLY, 0); err != nil {
		return nil, fmt.Errorf("cannot make the host read-only: %v", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return nil, fmt.Errorf("cannot mount /proc: %v", err)
	}
	if err := setattr("/proc", 0, unix.MOUNT_ATTR_RDONLY, 0); err != nil {
		return nil, fmt.Errorf("cannot make /proc read-only: %v", err)
	}
	for _, d := range []string{"/tmp", "/dev/shm"} {
		if fi, err := os.Lstat(d); err != nil || !fi.IsDir() {
			continue
		}
		if err := unix.Mount("tmpfs", d, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777"); err != nil {
			return nil, fmt.Errorf("cannot mount a private %s: %v", d, err)
		}
	}
	for i, d := range see {
		if covers(d) {
			// "/" or "/dev": already visible, and a copy of it would cover
			// the namespace's own /proc, /tmp or /dev/shm.
			if slices.Contains(pol.Write, d) {
				return nil, fmt.Errorf("the writable folder %s holds /proc, /tmp or /dev/shm, which the sandbox replaces by the namespace's own; choose a narrower workspace", d)
			}
			continue
		}
		tree, err := unix.OpenTree(fds[i], "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_EMPTY_PATH|unix.AT_RECURSIVE)
		if err != nil {
			return nil, fmt.Errorf("cannot copy the mount of %s: %v", d, err)
		}
		if err := os.MkdirAll(d, 0o755); err == nil { // under a private tmpfs: the path is made there
			err = unix.MoveMount(tree, "", unix.AT_FDCWD, d, unix.MOVE_MOUNT_F_EMPTY_PATH)
		}
		unix.Close(tree)
		if err != nil {
			return nil, fmt.Errorf("cannot mount %s: %v", d, err)
		}
		set, clr := uint64(unix.MOUNT_ATTR_RDONLY), uint64(0)
		if slices.Contains(pol.Write, d) {
			set, clr = 0, unix.MOUNT_ATTR_RDONLY
		}
		if err := setattr(d, 0, set, clr); err != nil {
			return nil, fmt.Errorf("cannot set %s's access: %v", d, err)
		}
	}
	var held []placeholder
	for _, p := range pol.Protect {
		h, err := protect(p, pol.Write)
		if err != nil {
			return held, err
		}
		if h != nil {
			held = append(held, *h)
		}
	}
	for _, d := range pol.Hide {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			continue
		}
		if err := unix.Mount("tmpfs", d, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=0555,size=4k"); err != nil {
			return held, fmt.Errorf("cannot hide %s: %v", d, err)
		}
	}
	return held, nil
}

// covers reports whether d is /proc, /tmp or /dev/shm, or a folder above
// one of them.
func covers(d string) bool {
	return slices.ContainsFunc([]string{"/proc", "/tmp", "/dev/shm"}, func(m string) bool { return under(m, []string{d}) || d == "/" })
}

// setattr changes the attributes of the mount at path.
func setattr(path string, flags uint, set, clr uint64) error {
	return unix.MountSetattr(unix.AT_FDCWD, path, flags, &unix.MountAttr{Attr_set: set, Attr_clr: clr})
}

// bindSelf mounts path onto itself, read-only when ro: a mount point
// cannot be renamed or removed, and a read-only one not written.
func bindSelf(path string, ro bool) error {
	tree, err := unix.OpenTree(unix.AT_FDCWD, path, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_SYMLINK_NOFOLLOW)
	if err != nil {
		return fmt.Errorf("cannot copy the mount of %s: %v", path, err)
	}
	defer unix.Close(tree)
	if err := unix.MoveMount(tree, "", unix.AT_FDCWD, path, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("cannot mount %s: %v", path, err)
	}
	if ro {
		if err := setattr(path, unix.AT_RECURSIVE, unix.MOUNT_ATTR_RDONLY, 0); err != nil {
			return fmt.Errorf("cannot make %s read-only: %v", path, err)
		}
	}
	return nil
}

// under reports whether path is one of dirs or inside one.
func under(path string, dirs []string) bool {
	return slices.ContainsFunc(dirs, func(d string) bool {
		return path == d || strings.HasPrefix(path, d+string(filepath.Separator))
	})
}

// protect mounts the protected path p read-only. A p that does not exist
// in a writable folder gets a placeholder first (an empty file or folder
// the helper creates, locked, and removes at the end); one outside the
// writable folders is read-only already. A symbolic link cannot be
// mounted over, and could be replaced, so it is refused.
func protect(p string, write []string) (*placeholder, error) {
	if !under(filepath.Dir(p), write) {
		return nil, nil
	}
	dir := !protectedFiles[filepath.Base(p)]
	for range 20 {
		created := false
		fi, err := os.Lstat(p)
		switch {
		case err == nil && fi.Mode()&os.ModeSymlink != 0:
			return nil, fmt.Errorf("the protected path %s is a symbolic link, which the sandbox cannot make read-only; replace the link by what it points to, or run with --sandbox read-only", p)
		case err == nil:
			dir = fi.IsDir()
		case errors.Is(err, os.ErrNotExist):
			if dir {
				err = unix.Mkdir(p, 0o755)
			} else {
				var fd int
				if fd, err = unix.Open(p, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0o644); err == nil {
					unix.Close(fd)
				}
			}
			if err == nil {
				created = true
			} else if !errors.Is(err, unix.EEXIST) {
				return nil, fmt.Errorf("cannot make the placeholder %s: %v", p, err)
			}
		default:
			return nil, fmt.Errorf("cannot inspect %s: %v", p, err)
		}
		fd, err := unix.Open(p, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
		if errors.Is(err, unix.ENOENT) {
			continue // removed meanwhile by the helper that made it
		}
		if err != nil {
			if !created && !errors.Is(err, unix.ELOOP) {
				// unreadable but there: protect it without a lock
				return nil, bindSelf(p, true)
			}
			return nil, fmt.Errorf("cannot open %s: %v", p, err)
		}
		if err := unix.Flock(fd, unix.LOCK_SH); err != nil {
			unix.Close(fd)
			return nil, fmt.Errorf("cannot lock %s: %v", p, err)
		}
		var a, b unix.Stat_t
		if unix.Fstat(fd, &a) != nil || unix.Lstat(p, &b) != nil || a.Ino != b.Ino || a.Dev != b.Dev || a.Nlink == 0 {
			unix.Close(fd)
			continue // replaced while we locked it
		}
		if err := bindSelf(p, true); err != nil {
			unix.Close(fd)
			return nil, err
		}
		return &placeholder{path: p, fd: fd, created: created, dir: dir}, nil
	}
	return nil, fmt.Errorf("the protected path %s kept changing while the sandbox was built", p)
}

// release removes the placeholders this helper made, each one that is
// still empty and that no other helper holds, and releases every lock.
// Only the init runs it, once every process of the namespace is gone, on
// a thread in the host's mount namespace, where a placeholder is no mount
// point.
func release(held []placeholder) {
	for _, h := range held {
		if h.created && unix.Flock(h.fd, unix.LOCK_EX|unix.LOCK_NB) == nil {
			var a, b unix.Stat_t
			if unix.Fstat(h.fd, &a) == nil && unix.Lstat(h.path, &b) == nil && a.Ino == b.Ino && a.Dev == b.Dev {
				if h.dir {
					_ = unix.Rmdir(h.path) // fails unless empty
				} else if a.Size == 0 {
					_ = unix.Unlink(h.path)
				}
			}
		}
		unix.Close(h.fd)
	}
}

// Securebits that keep a root inside the namespace from getting
// capabilities back through execve.
const (
	secbitNoroot               = 1 << 0
	secbitNorootLocked         = 1 << 1
	secbitNoSetuidFixup        = 1 << 2
	secbitNoSetuidFixupLocked  = 1 << 3
	secbitKeepCapsLocked       = 1 << 5
	secbitNoCapAmbientRaise    = 1 << 6
	secbitNoCapAmbientRaiseLck = 1 << 7
)

// dropCapabilities empties every capability set of the calling thread for
// good: the bounding set (so no execve gives any back), the ambient set,
// and the effective, permitted and inheritable sets, with securebits that
// keep uid 0 from regaining them.
func dropCapabilities() error {
	bits := secbitNoroot | secbitNorootLocked | secbitNoSetuidFixup | secbitNoSetuidFixupLocked |
		secbitKeepCapsLocked | secbitNoCapAmbientRaise | secbitNoCapAmbientRaiseLck
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, uintptr(bits), 0, 0, 0); err != nil {
		return fmt.Errorf("cannot set the securebits: %v", err)
	}
	for c := 0; ; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil {
			if errors.Is(err, unix.EINVAL) && c > 0 {
				break // past the last capability
			}
			return fmt.Errorf("cannot drop capability %d from the bounding set: %v", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("cannot clear the ambient capabilities: %v", err)
	}
	var data [2]unix.CapUserData
	if err := unix.Capset(&unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}, &data[0]); err != nil {
		return fmt.Errorf("cannot drop the capabilities: %v", err)
	}
	return nil
}

// setNonDumpable makes this process non-dumpable: its /proc files
// (environ, mem, maps) belong to root and ptrace is refused to every
// process without CAP_SYS_PTRACE in its user namespace.
func setNonDumpable() error { return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) }

// nonDumpable reports whether this process is non-dumpable.
func nonDumpable() bool {
	v, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	return err == nil && v == 0
}

// namespaceLayers probes each namespace of the sandbox, and the mounts.
func namespaceLayers() []Layer {
	base := uintptr(unix.CLONE_NEWUSER | unix.CLONE_NEWPID)
	probes := []struct {
		name, detail string
		flags        uintptr
		mounts       bool
	}{
		{"user and PID namespaces", "no privilege needed; the command's own /proc; every process dies with the command", base, false},
		{"mount namespace", "the host read-only, protected paths, private /tmp and /dev/shm, hidden folders", base, true},
		{"IPC namespace", "no System V IPC or POSIX message queues shared with the host", base | unix.CLONE_NEWIPC, false},
		{"network namespace", "no network at all without --sandbox-network", base | unix.CLONE_NEWNET, false},
	}
	var ls []Layer
	for _, p := range probes {
		l := Layer{Name: p.name, OK: true, Detail: p.detail}
		if err := probe(p.flags, p.mounts); err != nil {
			l.OK, l.Detail = false, "missing: "+err.Error()
		}
		ls = append(ls, l)
	}
	return ls
}
