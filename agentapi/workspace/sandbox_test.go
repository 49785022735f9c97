package workspace

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi/internal/proc"
	"github.com/wfrun/wfrun/agentapi/internal/proc/proctest"
)

// shell runs script with /bin/sh under w's sandbox, in w's root, and
// returns its combined output and exit status.
func shell(t *testing.T, w *Workspace, tmp, script string) (string, int) {
	t.Helper()
	return shellVia(t, w, tmp, script, true)
}

// shellVia is shell; with fast the helper starts inside the namespaces
// (SysProcAttr), else it creates them itself, as for a caller that only
// uses Confine.
func shellVia(t *testing.T, w *Workspace, tmp, script string, fast bool) (string, int) {
	t.Helper()
	path, argv, err := w.Confine("/bin/sh", []string{"sh", "-c", script}, tmp)
	if err != nil {
		t.Fatalf("Confine: %v", err)
	}
	var attr *syscall.SysProcAttr
	if fast {
		attr = w.SysProcAttr()
	}
	var pgid int
	ex, err := proc.Run(context.Background(), proc.Job{Path: path, Args: argv, Dir: w.Root(),
		Env: proc.Environ(nil, map[string]string{"TMPDIR": tmp}), MaxStdout: 1 << 20, MergeStderr: true, Grace: time.Second,
		SysProcAttr: attr, Started: func(g int) { pgid = g }})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	proctest.AssertGroupGone(t, pgid)
	return string(ex.Stdout), ex.State.ExitCode()
}

// sandboxed returns a workspace in a fresh folder, with a sibling folder
// outside it and a temp folder for the child.
func sandboxed(t *testing.T, cfg Config) (w *Workspace, outside, tmp string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"ws", "outside", "tmp"} {
		if err := os.Mkdir(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(base, "outside", "existing"), []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.Root = filepath.Join(base, "ws")
	if w, err = New(cfg); err != nil {
		t.Fatal(err)
	}
	return w, filepath.Join(base, "outside"), filepath.Join(base, "tmp")
}

func TestWorkspaceWriteConfinesWritesToTheWorkspaceAndTemp(t *testing.T) {
	t.Parallel()
	w, outside, tmp := sandboxed(t, Config{})
	out, status := shell(t, w, tmp, "echo inside > made.txt && mkdir -p a/b && echo deep > a/b/c && mv made.txt a/moved.txt && echo tmp > "+tmp+"/t && echo ok")
	if status != 0 || strings.TrimSpace(out) != "ok" {
		t.Fatalf("writes inside the workspace failed: status %d, output %q", status, out)
	}
	if b, err := os.ReadFile(filepath.Join(w.Root(), "a/moved.txt")); err != nil || string(b) != "inside\n" {
		t.Fatalf("the file written inside is not there: %q, %v", b, err)
	}

	denied := []struct{ name, script string }{
		{"create a file outside", "echo x > " + outside + "/new"},
		{"overwrite a file outside", "echo x > " + outside + "/existing"},
		{"append to a file outside", "echo x >> " + outside + "/existing"},
		{"truncate a file outside", "truncate -s 0 " + outside + "/existing"},
		{"remove a file outside", "rm " + outside + "/existing"},
		{"make a folder outside", "mkdir " + outside + "/d"},
		{"move a file out of the workspace", "echo x > f && mv f " + outside + "/f"},
		{"write through a link that points out", "ln -s " + outside + "/existing link && echo x > link"},
		{"write in the system temp folder", "echo x > /tmp/wfrun-sandbox-test-" + filepath.Base(tmp)},
	}
	for _, c := range denied {
		out, status := shell(t, w, tmp, c.script)
		if status == 0 {
			t.Errorf("%s: the sandbox let it succeed (output %q)", c.name, out)
		}
	}
	if b, err := os.ReadFile(filepath.Join(outside, "existing")); err != nil || string(b) != "keep me\n" {
		t.Fatalf("the file outside was changed: %q, %v", b, err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 1 {
		t.Fatalf("something was created outside: %v", entries)
	}
}

func TestReadOnlyCanReadButWriteNowhere(t *testing.T) {
	t.Parallel()
	w, outside, tmp := sandboxed(t, Config{Mode: ReadOnly})
	if err := os.WriteFile(filepath.Join(w.Root(), "readme"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The outside folder is under the host's /tmp, which the sandbox
	// replaces by a private one; the rest of the host reads as usual.
	out, status := shell(t, w, tmp, "cat readme && test ! -e "+outside+" && test -r /etc/passwd && ls / > /dev/null && echo quiet > /dev/null && echo done")
	if status != 0 || out != "hello\ndone\n" {
		t.Fatalf("reads failed in read-only: status %d, output %q", status, out)
	}
	for _, script := range []string{"echo x > new", "echo x >> readme", "rm readme", "mkdir d", "echo x > " + tmp + "/t", "echo x > " + outside + "/new"} {
		if out, status := shell(t, w, tmp, script); status == 0 {
			t.Errorf("read-only let %q succeed (output %q)", script, out)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(w.Root(), "readme")); string(b) != "hello\n" {
		t.Fatalf("read-only changed a file: %q", b)
	}
}

func TestTCPIsRefusedUnlessNetworkIsAllowed(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	// bash's /dev/tcp is a plain connect(2), no other program needed.
	dial := fmt.Sprintf("exec /bin/bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d && echo connected'", port)
	for _, c := range []struct {
		cfg  Config
		want bool
	}{
		{Config{}, false},
		{Config{Mode: ReadOnly}, false},
		{Config{Network: true}, true},
		{Config{Mode: ReadOnly, Network: true}, true},
		{Config{Mode: DangerFullAccess}, true},
	} {
		w, _, tmp := sandboxed(t, c.cfg)
		out, status := shell(t, w, tmp, dial)
		if got := status == 0 && strings.Contains(out, "connected"); got != c.want {
			t.Errorf("%+v: connected = %v (status %d, output %q), want %v", c.cfg, got, status, out, c.want)
		}
	}
}

func TestASandboxedProcessCannotSignalWfrun(t *testing.T) {
	t.Parallel()
	w, _, tmp := sandboxed(t, Config{})
	if abi, _ := landlockABI(); abi < 6 {
		t.Skipf("signal scoping needs Landlock ABI 6; this kernel has %d", abi)
	}
	out, status := shell(t, w, tmp, fmt.Sprintf("kill -0 %d", os.Getpid()))
	if status == 0 {
		t.Fatalf("the sandboxed process could signal the test process (output %q)", out)
	}
}

func TestDangerFullAccessRunsTheCommandItself(t *testing.T) {
	t.Parallel()
	w, outside, tmp := sandboxed(t, Config{Mode: DangerFullAccess})
	path, argv, err := w.Confine("/bin/sh", []string{"sh", "-c", "true"}, tmp)
	if err != nil || path != "/bin/sh" || len(argv) != 3 {
		t.Fatalf("Confine = %q %q %v, want the command unchanged", path, argv, err)
	}
	if out, status := shell(t, w, tmp, "echo x > "+outside+"/new"); status != 0 {
		t.Fatalf("danger-full-access could not write outside: %d %q", status, out)
	}
}

func TestSandboxedCommandsAreRefusedWithASentence(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		helper  bool
		abi     int
		abiErr  error
		network bool
		cause   error
		words   []string
	}{
		{"without Init", false, 7, nil, false, ErrNoHelper, []string{"workspace.Init()", "engine.Init()", "--sandbox danger-full-access"}},
		{"without Landlock", true, 0, syscall.EOPNOTSUPP, false, ErrNoLandlock, []string{"no Landlock", "--sandbox danger-full-access", "ABI 4"}},
		{"with Landlock too old for TCP", true, 3, nil, false, ErrNoLandlock, []string{"ABI is 3", "ABI 4", "refuse TCP"}},
		{"with Landlock too old for truncate", true, 2, nil, true, ErrNoLandlock, []string{"ABI is 2", "ABI 3"}},
	}
	for _, c := range cases {
		for _, mode := range []Mode{ReadOnly, WorkspaceWrite} {
			w, _, tmp := sandboxed(t, Config{Mode: mode, Network: c.network})
			w.helper = func() bool { return c.helper }
			w.abi = func() (int, error) { return c.abi, c.abiErr }
			_, _, err := w.Confine("/bin/sh", []string{"sh"}, tmp)
			if !errors.Is(err, c.cause) || w.CheckSandbox() == nil {
				t.Errorf("%s, %s: got %v, want a refusal wrapping %v", c.name, mode, err, c.cause)
				continue
			}
			for _, word := range append(c.words, string(mode)) {
				if !strings.Contains(err.Error(), word) {
					t.Errorf("%s, %s: the refusal %q does not say %q", c.name, mode, err, word)
				}
			}
		}
	}
	w, _, tmp := sandboxed(t, Config{Mode: DangerFullAccess})
	w.helper = func() bool { return false }
	if _, _, err := w.Confine("/bin/sh", []string{"sh"}, tmp); err != nil {
		t.Fatalf("danger-full-access needs no helper, got %v", err)
	}
}

func TestTheHelperRefusesBadInvocations(t *testing.T) {
	t.Parallel()
	var stderr strings.Builder
	if got := helperMain(nil, nil, &stderr); got != 2 || !strings.Contains(stderr.String(), "mode word") {
		t.Errorf("no mode word: status %d, %q", got, stderr.String())
	}
	stderr.Reset()
	if got := helperMain([]string{"isolate"}, nil, &stderr); got != 2 || !strings.Contains(stderr.String(), `unknown mode "isolate"`) {
		t.Errorf("unknown mode: status %d, %q", got, stderr.String())
	}
	cases := [][]string{
		{"sandbox"},
		{"sandbox", "{not json", "/bin/sh", "sh"},
		{"sandbox", `{"write":["relative"]}`, "/bin/sh", "sh"},
		{"sandbox", `{}`, "sh", "sh"},
	}
	for _, args := range cases {
		stderr.Reset()
		if got := helperMain(args, nil, &stderr); got != helperStatus || !strings.Contains(stderr.String(), "the command was not run") {
			t.Errorf("%q: status %d, %q", args, got, stderr.String())
		}
	}
}

func TestDispatchRunsOtherHelperModes(t *testing.T) {
	t.Parallel()
	var got []string
	modes := map[string]func([]string) int{"isolate": func(args []string) int { got = args; return 7 }}
	if status := helperMain([]string{"isolate", "a", "b"}, modes, &strings.Builder{}); status != 7 || strings.Join(got, " ") != "a b" {
		t.Fatalf("status %d, args %q", status, got)
	}
	var stderr strings.Builder
	modes["sandbox"] = func([]string) int { return 0 } // cannot replace the sandbox
	if status := helperMain([]string{"sandbox"}, modes, &stderr); status != helperStatus {
		t.Fatalf("the sandbox word was taken over: status %d", status)
	}
}

func TestEnvTellsGitWhatTheWorkspaceCannotDo(t *testing.T) {
	t.Parallel()
	w, _, _ := sandboxed(t, Config{Mode: ReadOnly})
	if w.Env()["GIT_OPTIONAL_LOCKS"] != "0" {
		t.Errorf("read-only: %v", w.Env())
	}
	w, _, _ = sandboxed(t, Config{})
	if len(w.Env()) != 0 {
		t.Errorf("workspace-write: %v", w.Env())
	}
}

func TestCommandEnvIsMinimalWithTheChildsTempAndTheCallersVariablesLast(t *testing.T) {
	t.Setenv("WFRUN_TEST_SECRET", "do-not-pass")
	tmp := t.TempDir()
	for _, c := range []struct {
		name  string
		mode  Mode
		tmp   string
		extra map[string]string
		want  []string // KEY=VALUE that must be there
		none  []string // KEY= prefixes that must not
	}{
		{"workspace-write has TMPDIR and a cache folder in the temp folder", WorkspaceWrite, tmp, nil,
			[]string{"TMPDIR=" + tmp, "XDG_CACHE_HOME=" + filepath.Join(tmp, ".cache"), "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0", "TERM=dumb", "NO_COLOR=1"},
			[]string{"WFRUN_TEST_SECRET=", "GIT_OPTIONAL_LOCKS="}},
		{"read-only has no temp folder and tells git to take no locks", ReadOnly, "", nil,
			[]string{"GIT_OPTIONAL_LOCKS=0", "PAGER=cat"},
			[]string{"TMPDIR=", "XDG_CACHE_HOME=", "WFRUN_TEST_SECRET="}},
		{"danger-full-access keeps TMPDIR but not the cache folder", DangerFullAccess, tmp, nil,
			[]string{"TMPDIR=" + tmp},
			[]string{"XDG_CACHE_HOME="}},
		{"the caller's variables win over the defaults and the workspace's", ReadOnly, tmp, map[string]string{"PAGER": "less", "GIT_OPTIONAL_LOCKS": "1", "EXTRA": "x"},
			[]string{"PAGER=less", "GIT_OPTIONAL_LOCKS=1", "EXTRA=x"},
			[]string{"PAGER=cat", "GIT_OPTIONAL_LOCKS=0"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, err := New(Config{Root: t.TempDir(), Mode: c.mode})
			if err != nil {
				t.Fatal(err)
			}
			env := w.CommandEnv(c.tmp, c.extra)
			seen := map[string]bool{}
			for _, kv := range env {
				k, _, _ := strings.Cut(kv, "=")
				if seen[k] {
					t.Errorf("%s appears twice in %q", k, env)
				}
				seen[k] = true
			}
			for _, want := range c.want {
				if !slices.Contains(env, want) {
					t.Errorf("%s is missing from %q", want, env)
				}
			}
			for _, bad := range c.none {
				if slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, bad) }) {
					t.Errorf("%s… is in %q", bad, env)
				}
			}
		})
	}
}
