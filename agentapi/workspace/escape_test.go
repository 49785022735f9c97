package workspace

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi/internal/proc"
	"golang.org/x/sys/unix"
)

// The escapes a hostile child reproduced against the Landlock-only
// sandbox, each closed by the namespaces.

// secretEnv names the variable the secrets test puts in the environment
// of a process that plays wfrun; childEnv marks that process.
const (
	secretEnv   = "WFRUN_ESCAPE_TEST_KEY"
	secretValue = "sk-escape-test-0123456789"
	childEnv    = "WFRUN_ESCAPE_TEST_CHILD"
)

// stealScript tries every way to read another process's environment: the
// parent's, every process /proc shows, through /proc/self/.., and ptrace
// (with python3, when the machine has it).
const stealScript = `
tr '\0' '\n' < /proc/$PPID/environ
for p in /proc/[0-9]*; do tr '\0' '\n' < $p/environ; done 2>/dev/null
cat /proc/self/../1/environ /proc/self/../$PPID/environ 2>/dev/null | tr '\0' '\n'
cat /proc/$PPID/cmdline /proc/1/cmdline 2>/dev/null | tr '\0' '\n' > /dev/null
if command -v python3 > /dev/null; then python3 - <<'EOF' 2>&1
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
mine = {os.getpid(), os.getppid()}  # the command itself may be traced
for pid in [int(p) for p in os.listdir('/proc') if p.isdigit()]:
    if pid in mine:
        continue
    if libc.ptrace(0x4206, pid, 0, 0) == 0:  # PTRACE_SEIZE: no stop
        print('attached to', pid)
    try:
        with open('/proc/%d/mem' % pid, 'rb') as f:
            print('mem of', pid, 'is readable')
    except OSError:
        pass
EOF
fi
echo end-of-attempts
`

// TestSecretsStayWithWfrun is the process that plays wfrun when
// childEnv is set (its initial environment holds the secret, as wfrun's
// holds API keys); otherwise it starts that process and checks that
// nothing the sandboxed command printed holds the secret.
func TestSecretsStayWithWfrun(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		stealFromHere(t)
		return
	}
	t.Parallel()
	for _, mode := range []Mode{ReadOnly, WorkspaceWrite} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestSecretsStayWithWfrun$", "-test.v")
		cmd.Env = append(os.Environ(), secretEnv+"="+secretValue, childEnv+"="+string(mode))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: the process playing wfrun failed: %v\n%s", mode, err, out)
		}
		if !strings.Contains(string(out), "end-of-attempts") {
			t.Fatalf("%s: the sandboxed command did not run to its end:\n%s", mode, out)
		}
		if strings.Contains(string(out), secretValue) || strings.Contains(string(out), "attached to") || strings.Contains(string(out), "is readable") {
			t.Fatalf("%s: a sandboxed command read wfrun's environment or memory:\n%s", mode, out)
		}
	}
}

// stealFromHere runs stealScript sandboxed and prints what it read.
func stealFromHere(t *testing.T) {
	if !nonDumpable() {
		t.Fatal("Init did not make the process non-dumpable")
	}
	w, _, tmp := sandboxed(t, Config{Mode: Mode(os.Getenv(childEnv))})
	for _, fast := range []bool{true, false} {
		out, _ := shellVia(t, w, tmp, stealScript, fast)
		t.Logf("fast=%v:\n%s", fast, out)
	}
}

func TestNoProcessOutlivesItsCommand(t *testing.T) {
	t.Parallel()
	// Each survivor takes a lock on a file of the workspace and holds it
	// for as long as it lives, then tells the command it has it; once Run
	// has returned, the lock must be free at once.
	survivors := map[string]string{
		"setsid":                 "setsid sh -c 'exec 9>>lock; flock 9; echo > ready; exec sleep 600' &",
		"setsid ignoring TERM":   "setsid sh -c 'trap \"\" TERM HUP INT; exec 9>>lock; flock 9; echo > ready; while :; do sleep 1; done' &",
		"double fork":            "( ( exec 9>>lock; flock 9; echo > ready; exec sleep 600 ) & ) &",
		"nohup in a new group":   "nohup setsid sh -c 'exec 9>>lock; flock 9; echo > ready; sleep 600; date > LATE' > /dev/null 2>&1 &",
		"daemon via disown/bash": "bash -c 'setsid bash -c \"exec 9>>lock; flock 9; echo > ready; sleep 600\" & disown' &",
	}
	for name, start := range survivors {
		for _, fast := range []bool{true, false} {
			w, _, tmp := sandboxed(t, Config{})
			script := start + "\nwhile [ ! -e ready ]; do sleep 0.01; done; echo started"
			out, status := shellVia(t, w, tmp, script, fast)
			if status != 0 || !strings.Contains(out, "started") {
				t.Fatalf("%s: the command failed: %d %q", name, status, out)
			}
			f, err := os.OpenFile(filepath.Join(w.Root(), "lock"), os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
			f.Close()
			if err != nil {
				t.Errorf("%s (fast %v): a process of the command still holds its lock after the command returned: %v", name, fast, err)
			}
		}
	}
}

func TestReadOnlyRefusesMetadataChanges(t *testing.T) {
	t.Parallel()
	w, _, tmp := sandboxed(t, Config{Mode: ReadOnly})
	file := filepath.Join(w.Root(), "readme")
	if err := os.WriteFile(file, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(file, old, old); err != nil {
		t.Fatal(err)
	}
	for _, script := range []string{
		"chmod 600 readme",
		"chmod 666 readme",
		"chown $(id -u):$(id -g) readme",
		"touch -d 2001-01-01 readme",
		"touch readme",
		"setfattr -n user.x -v y readme 2>/dev/null || python3 -c 'import os; os.setxattr(\"readme\", \"user.x\", b\"y\")'",
		"ln readme hardlink",
		"mv readme moved",
	} {
		if out, status := shell(t, w, tmp, script); status == 0 {
			t.Errorf("read-only let %q succeed (output %q)", script, out)
		}
	}
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o644 || !fi.ModTime().Equal(old) {
		t.Fatalf("read-only changed the file's metadata: mode %v, mtime %v", fi.Mode(), fi.ModTime())
	}
}

func TestTheCommandHasNoCapabilitiesAndItsOwnProc(t *testing.T) {
	t.Parallel()
	w, _, tmp := sandboxed(t, Config{})
	out, status := shell(t, w, tmp, `grep -E '^(CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs)' /proc/self/status; echo pid=$$ ppid=$PPID; ls -d /proc/[0-9]* | wc -l; ip -o link 2>/dev/null | wc -l`)
	if status != 0 {
		t.Fatalf("status %d: %s", status, out)
	}
	for _, want := range []string{"CapInh:\t0000000000000000", "CapPrm:\t0000000000000000", "CapEff:\t0000000000000000",
		"CapBnd:\t0000000000000000", "CapAmb:\t0000000000000000", "NoNewPrivs:\t1", "ppid=1"} {
		if !strings.Contains(out, want) {
			t.Errorf("the command's status lacks %q:\n%s", want, out)
		}
	}
}

func TestHiddenFoldersAreEmpty(t *testing.T) {
	t.Parallel()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(base, "ws", "state")
	write(t, filepath.Join(state, "journal.key"), "secret key\n")
	w, err := New(Config{Root: filepath.Join(base, "ws"), Hide: []string{state}})
	if err != nil {
		t.Fatal(err)
	}
	out, status := shell(t, w, "", "ls -A state | wc -l; cat state/journal.key; echo x > state/new")
	if status == 0 || strings.Contains(out, "secret key") || !strings.HasPrefix(out, "0\n") {
		t.Fatalf("the hidden folder showed through: status %d, %q", status, out)
	}
	if _, err := New(Config{Root: base, Hide: []string{"relative"}}); err == nil {
		t.Fatal("a relative hidden folder was accepted")
	}
}

func TestProtectedPathsAreReadOnlyInAWritableWorkspace(t *testing.T) {
	t.Parallel()
	w := repo(t, Config{})
	r := w.Root()
	tmp := t.TempDir()
	before := gitIn(t, r, "config", "--list", "--local")
	attacks := []string{
		"echo '[core]\n\tfsmonitor = touch PWNED' >> .git/config",
		"git config core.fsmonitor 'touch PWNED'",
		"cp .git/config c && echo x >> c && mv c .git/config",
		"echo x > .git/config.worktree",
		"echo 'touch PWNED' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
		"rm -rf .git/hooks",
		"echo '*' >> .git/info/exclude",
		"echo '* filter=x' > .git/info/attributes",
		"mkdir -p .git/modules/x",
		"mkdir -p evil && cp .git/config evil/ && echo ../evil > .git/commondir",
		"echo x > .git/worktrees",
		"mv .git .git-old && mkdir .git",
		"mkdir -p .wfrun/agents && echo persona > .wfrun/agents/evil.md",
		"ln -s src .wfrun",
		"mkdir -p .claude && echo '{}' > .claude/settings.json",
		"echo x > .claude",
	}
	for _, script := range attacks {
		if out, status := shell(t, w, tmp, script); status == 0 {
			t.Errorf("the sandbox let %q succeed (output %q)", script, out)
		}
	}
	if after := gitIn(t, r, "config", "--list", "--local"); after != before {
		t.Errorf("the repository's config changed:\n%s\nwas\n%s", after, before)
	}
	for _, p := range []string{".git/config.worktree", ".git/modules", ".git/commondir", ".git/worktrees", ".wfrun", ".claude", ".git/hooks/pre-commit", ".git/info/attributes", ".git-old", "PWNED"} {
		if _, err := os.Lstat(filepath.Join(r, p)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s exists after the commands (a trace, or an attack that got through): %v", p, err)
		}
	}
	// The checkout is the child's to change, and git reads the repository;
	// commits are made in worktrees.
	out, status := shellEnv(t, w, tmp, "echo more >> README && git status --porcelain -- README && git log --format=%s -1")
	if status != 0 || strings.TrimSpace(out) != "M README\nfirst" {
		t.Fatalf("git in the workspace: %d %q", status, out)
	}
}

func TestProtectedPathsOfAWorktree(t *testing.T) {
	t.Parallel()
	w := repo(t, Config{})
	wt, err := w.AddWorktree(context.Background(), "ag_protect")
	if err != nil {
		t.Fatal(err)
	}
	ws := wt.Workspace()
	tmp := t.TempDir()
	own := gitIn(t, ws.Root(), "rev-parse", "--absolute-git-dir")
	for _, script := range []string{
		"echo 'gitdir: /tmp/evil' > .git",
		"rm .git",
		"echo /tmp > " + own + "/commondir",
		"echo /tmp/x > " + own + "/gitdir",
		"echo '[core]' > " + own + "/config.worktree",
		"echo '[core]' > " + own + "/config",
		"mkdir .claude",
	} {
		if out, status := shellEnv(t, ws, tmp, script); status == 0 {
			t.Errorf("the worktree's sandbox let %q succeed (output %q)", script, out)
		}
	}
	out, status := shellEnv(t, ws, tmp, "echo child > README && git -c user.name=c -c user.email=c@example.com commit --quiet -am 'child work' && git log --format=%s -1")
	if status != 0 || strings.TrimSpace(out) != "child work" {
		t.Fatalf("a commit in the worktree failed: %d %q", status, out)
	}
	for _, p := range []string{filepath.Join(own, "config"), filepath.Join(own, "config.worktree"), filepath.Join(ws.Root(), ".claude")} {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s was left behind: %v", p, err)
		}
	}
	if _, err := wt.Finish(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestWithoutNamespacesSandboxedCommandsAreRefusedUnlessLandlockOnly(t *testing.T) {
	t.Parallel()
	missing := func() error { return errors.New("user namespaces are disabled") }
	for _, mode := range []Mode{ReadOnly, WorkspaceWrite} {
		w, _, tmp := sandboxed(t, Config{Mode: mode})
		w.namespaces = missing
		_, _, err := w.Confine("/bin/sh", []string{"sh", "-c", "true"}, tmp)
		if !errors.Is(err, ErrNoNamespaces) || w.CheckSandbox() == nil {
			t.Fatalf("%s: Confine = %v, want a refusal wrapping ErrNoNamespaces", mode, err)
		}
		for _, word := range []string{"--sandbox-landlock-only", "--sandbox danger-full-access", "user namespaces are disabled", string(mode)} {
			if !strings.Contains(err.Error(), word) {
				t.Errorf("%s: the refusal %q does not say %q", mode, err, word)
			}
		}

		w, _, tmp = sandboxed(t, Config{Mode: mode, LandlockOnly: true})
		w.namespaces = missing
		if !w.LandlockOnly() || w.SysProcAttr() != nil {
			t.Fatalf("%s: LandlockOnly %v, SysProcAttr %v", mode, w.LandlockOnly(), w.SysProcAttr())
		}
		out, status := shell(t, w, tmp, "echo $PPID; echo x > /usr/landlock-only-test")
		if status == 0 || strings.HasPrefix(out, "1\n") {
			t.Fatalf("%s: under Landlock alone: status %d, %q", mode, status, out)
		}
		// What seccomp takes back: no new session or group (a survivor
		// stays in the group that is killed), no ptrace, and in read-only
		// no metadata change.
		refused := []string{"setsid true", "python3 -c 'import os; os.setpgid(0, 0)'",
			"python3 -c 'import ctypes,os; exit(ctypes.CDLL(None).ptrace(0x4206, os.getppid(), 0, 0) != 0)'"}
		if mode == ReadOnly {
			refused = append(refused, "chmod 600 "+w.Root(), "touch -d 2001-01-01 "+w.Root(), "chown $(id -u) "+w.Root())
		}
		for _, script := range refused {
			if out, status := shell(t, w, tmp, script); status == 0 {
				t.Errorf("%s: Landlock alone let %q succeed (output %q)", mode, script, out)
			}
		}
		if out, status := shell(t, w, tmp, "sh -c 'echo nested' && ls / > /dev/null && (sleep 0 &) && echo ok"); status != 0 || !strings.HasSuffix(out, "ok\n") {
			t.Errorf("%s: an ordinary script fails under the seccomp filter: %d %q", mode, status, out)
		}
	}
	w, _, _ := sandboxed(t, Config{LandlockOnly: true})
	if w.LandlockOnly() {
		t.Fatal("LandlockOnly on a machine with namespaces")
	}
}

// The helper leaves the environment of the process as it came: only what
// Confine's caller gave the command.
func TestTheCommandSeesOnlyItsOwnEnvironment(t *testing.T) {
	t.Parallel()
	w, _, tmp := sandboxed(t, Config{})
	path, argv, err := w.Confine("/usr/bin/env", []string{"env"}, tmp)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := proc.Run(context.Background(), proc.Job{Path: path, Args: argv, Dir: w.Root(), Env: []string{"ONLY=this"},
		MaxStdout: 1 << 16, SysProcAttr: w.SysProcAttr(), Grace: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(ex.Stdout)); got != "ONLY=this" {
		t.Fatalf("env printed %q", got)
	}
	if ws, ok := ex.State.Sys().(syscall.WaitStatus); !ok || ws.ExitStatus() != 0 {
		t.Fatalf("status %v", ex.State)
	}
}

// Two commands in one workspace share the placeholders of the protected
// paths that do not exist: the one that made them ends first, and the
// other must stay protected until its own end.
func TestAPlaceholderOutlivesTheCommandThatMadeIt(t *testing.T) {
	t.Parallel()
	w, _, tmp := sandboxed(t, Config{})
	r := w.Root()
	wait := func(name string) string { return "while [ ! -e " + name + " ]; do sleep 0.01; done; " }
	type result struct {
		out    string
		status int
	}
	first, second := make(chan result, 1), make(chan result, 1)
	// A result is sent even when shell fails the test (and ends the
	// goroutine), so that the test never waits for nothing.
	firstDone, secondDone := make(chan struct{}), make(chan struct{})
	go func() {
		r := result{status: -1}
		defer close(firstDone)
		defer func() { first <- r }()
		r.out, r.status = shell(t, w, tmp, "echo > a-ready; "+wait("a-go")+"echo first done")
	}()
	waitFile(t, filepath.Join(r, "a-ready"), firstDone)
	go func() {
		r := result{status: -1}
		defer close(secondDone)
		defer func() { second <- r }()
		r.out, r.status = shell(t, w, tmp, "echo > b-ready; "+wait("b-go")+"mkdir -p .claude/x || mkdir -p .wfrun/agents || echo x > .git; find .claude .wfrun .git -mindepth 1; find .claude .wfrun .git -mindepth 1 | wc -l")
	}()
	waitFile(t, filepath.Join(r, "b-ready"), secondDone)
	write(t, filepath.Join(r, "a-go"), "")
	if res := <-first; res.status != 0 {
		t.Fatalf("the first command failed: %d %q", res.status, res.out)
	}
	write(t, filepath.Join(r, "b-go"), "")
	res := <-second
	if res.status != 0 || strings.TrimSpace(res.out[strings.LastIndex(strings.TrimSpace(res.out), "\n")+1:]) != "0" {
		t.Fatalf("the second command could change a protected path once the first had ended: %d %q", res.status, res.out)
	}
	for _, p := range []string{".claude", ".wfrun", ".git"} {
		if entries, err := os.ReadDir(filepath.Join(r, p)); err == nil && len(entries) > 0 {
			t.Errorf("%s got %v", p, entries)
		}
	}
}

// waitFile returns once path exists, and fails the test when the command
// that was to make it has ended without.
func waitFile(t *testing.T, path string, ended <-chan struct{}) {
	t.Helper()
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		select {
		case <-ended:
			if _, err := os.Stat(path); err == nil {
				return
			}
			t.Fatalf("the command ended and %s never appeared", path)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// The init's threads other than the command's are in the host's mount
// namespace, with capabilities: its /proc entries must not lead there.
func TestTheInitIsNoWayOut(t *testing.T) {
	t.Parallel()
	w, outside, tmp := sandboxed(t, Config{})
	for _, script := range []string{
		"ls /proc/1/root/",
		"ls /proc/1/cwd/",
		"echo x > /proc/1/cwd/escaped",
		"for d in /proc/1/task/*; do ls $d/root/ && exit 0; done; exit 1",
		"for d in /proc/1/task/*; do echo x > $d/cwd/escaped && exit 0; done; exit 1",
		"for f in /proc/1/fd/*; do ls $f/ && exit 0; done; exit 1",
		"cat /proc/1/environ",
		"cat /proc/1/maps",
		"echo x > " + outside + "/escaped",
	} {
		if out, status := shell(t, w, tmp, script); status == 0 {
			t.Errorf("%q succeeded: %q", script, out)
		}
	}
	if _, err := os.Stat(filepath.Join(w.Root(), "escaped")); err == nil {
		t.Error("a file was written through the init's /proc entries")
	}
}

func TestAWorkspaceAboveTheSandboxsOwnMountsIsRefusedWritableAndReadableReadOnly(t *testing.T) {
	t.Parallel()
	w, err := New(Config{Root: "/", Mode: WorkspaceWrite})
	if err != nil {
		t.Fatal(err)
	}
	if out, status := shell(t, w, "", "true"); status != helperStatus || !strings.Contains(out, "choose a narrower workspace") {
		t.Fatalf("workspace-write at /: %d %q", status, out)
	}
	w, err = New(Config{Root: "/", Mode: ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	if out, status := shell(t, w, "", "test -r /etc/passwd && ls /proc | grep -c '^[0-9]'"); status != 0 || strings.TrimSpace(out) == "" {
		t.Fatalf("read-only at /: %d %q", status, out)
	}
}

// TestTheSandboxWorksForAnUnprivilegedUser runs the escape tests again as
// nobody, when the tests run as root: a copy of the test binary where
// nobody can reach it, started with nobody's credentials.
func TestTheSandboxWorksForAnUnprivilegedUser(t *testing.T) {
	if os.Getuid() != 0 || os.Getenv(childEnv) != "" {
		t.Skip("runs as root only: it starts the tests again as nobody")
	}
	t.Parallel()
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o777); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "workspace.test")
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.run=^(TestSecretsStayWithWfrun|TestNoProcessOutlivesItsCommand|TestProtectedPathsAreReadOnlyInAWritableWorkspace|TestTheCommandHasNoCapabilitiesAndItsOwnProc|TestReadOnlyRefusesMetadataChanges)$", "-test.v")
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + dir, "TMPDIR=" + dir, "PATH=" + os.Getenv("PATH")}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Count(string(out), "--- PASS: ") != 5 {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
}
