package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi/internal/proc/proctest"
	"github.com/wfrun/wfrun/agentapi/workspace"
)

func TestBashWritesInsideTheWorkspaceButNotOutside(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, map[string]string{"in.txt": "hello\n"})
	if got := f.ok(Bash, obj{"command": "cat in.txt > copy.txt && echo done", "description": "copy a file"}); got != "done" {
		t.Fatalf("got %q", got)
	}
	if f.read("copy.txt") != "hello\n" {
		t.Fatal("the write inside did not happen")
	}
	// The outside folder is under the host's /tmp, which the sandbox
	// replaces by a private one: the write fails as "No such file".
	msg := f.fails(Bash, obj{"command": "echo pwned > " + filepath.Join(f.outside, "new") + " && echo wrote"}, "[exit status")
	if strings.Contains(msg, "wrote") {
		t.Fatalf("the command went on after the denied write: %s", msg)
	}
	f.fails(Bash, obj{"command": "echo pwned >> " + filepath.Join(f.outside, "secret")}, "[exit status")
	f.fails(Bash, obj{"command": "touch /usr/wfrun-bash-test"}, "Read-only file system", "[exit status")
	if b, _ := os.ReadFile(filepath.Join(f.outside, "secret")); string(b) != "top secret\n" {
		t.Fatalf("the file outside changed: %q", b)
	}
	if entries, _ := os.ReadDir(f.outside); len(entries) != 1 {
		t.Fatalf("Bash created something outside: %v", entries)
	}
	if got := f.ok(Bash, obj{"command": `echo scratch > "$TMPDIR/x" && cat "$TMPDIR/x"`}); got != "scratch" {
		t.Fatalf("the child's temp folder is not writable: %q", got)
	}
}

func TestBashInReadOnlyWritesNowhere(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.ReadOnly, map[string]string{"in.txt": "hello\n"})
	if got := f.ok(Bash, obj{"command": "cat in.txt; ls -a | wc -l > /dev/null; test -r /etc/passwd && echo readable"}); got != "hello\nreadable" {
		t.Fatalf("reads in read-only: %q", got)
	}
	for _, cmd := range []string{"echo x > in.txt", "echo x > new.txt", "rm in.txt", "mkdir d", "echo x > /tmp/wfrun-ro-test", "touch " + filepath.Join(f.outside, "x")} {
		f.fails(Bash, obj{"command": cmd}, "[exit status")
	}
	if f.read("in.txt") != "hello\n" {
		t.Fatal("read-only Bash changed a file")
	}
}

func TestBashInDangerFullAccessIsNotSandboxed(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.DangerFullAccess, nil)
	f.ok(Bash, obj{"command": "echo x > " + filepath.Join(f.outside, "allowed")})
	if _, err := os.Stat(filepath.Join(f.outside, "allowed")); err != nil {
		t.Fatal(err)
	}
}

func TestBashReportsExitStatusTimeoutAndTruncation(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, nil)
	f.fails(Bash, obj{"command": "echo before; echo oops >&2; exit 3"}, "before\noops\n[exit status 3]")
	// Not "started" too: a loaded machine may take the whole 300 ms to
	// start bash. TestBashStopsWhenTheChildIsCancelled shows that the
	// output before a stop is kept.
	f.fails(Bash, obj{"command": "echo started; sleep 30", "timeout": 300}, "did not finish within its timeout of 300ms")
	got := f.ok(Bash, obj{"command": "head -c 100000 /dev/zero | tr '\\0' a; echo; echo tail >&2"})
	if !strings.HasPrefix(got, strings.Repeat("a", 1000)) || !strings.HasSuffix(got, "[output truncated: the first 30000 of 100006 bytes are shown; redirect the output to a file and Read or Grep it]") {
		t.Fatalf("a flood: %d bytes, ends %q", len(got), got[len(got)-200:])
	}
	if got := f.ok(Bash, obj{"command": "true"}); got != "(no output)" {
		t.Fatalf("no output: %q", got)
	}
	f.fails(Bash, obj{"command": "  "}, "needs a command")
	f.fails(Bash, obj{"command": "true", "timeout": -1}, "milliseconds")
}

func TestBashKillsWhatTheCommandLeftBehind(t *testing.T) {
	t.Parallel()
	// In danger-full-access the command's process group is the host's.
	f := newFixture(t, workspace.DangerFullAccess, nil)
	got := f.ok(Bash, obj{"command": "sleep 30 & echo $$"})
	pgid, err := strconv.Atoi(got)
	if err != nil {
		t.Fatalf("got %q", got)
	}
	proctest.AssertGroupGone(t, pgid)
	// Sandboxed, the command's pids are its namespace's: what it left
	// holds a lock, which must be free once Bash has returned (setsid
	// included: the whole namespace goes).
	f = newFixture(t, workspace.WorkspaceWrite, nil)
	f.ok(Bash, obj{"command": "setsid sh -c 'exec 9>>lock; flock 9; echo > ready; exec sleep 30' & while [ ! -e ready ]; do sleep 0.01; done"})
	lock, err := os.OpenFile(filepath.Join(f.root, "lock"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatalf("a process the command left behind still holds its lock: %v", err)
	}
}

func TestBashStopsWhenTheChildIsCancelled(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Cancel once the command has echoed its line (it then makes a file),
	// however long a loaded machine takes to start it.
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for ctx.Err() == nil {
			if _, err := os.Stat(filepath.Join(f.root, "echoed")); err == nil {
				cancel()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	_, err := f.set.Call(ctx, Bash, json.RawMessage(`{"command":"echo waiting; touch echoed; sleep 30"}`))
	cancel()
	<-watched
	if err == nil || !strings.Contains(err.Error(), "waiting") || !strings.Contains(err.Error(), "the child was stopped") {
		t.Fatalf("got %v", err)
	}
}

func TestBashGetsAMinimalEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-must-not-leak")
	t.Setenv("WFRUN_TEST_SECRET", "also-secret")
	f := newFixture(t, workspace.WorkspaceWrite, nil)
	got := f.ok(Bash, obj{"command": "env"})
	for _, secret := range []string{"sk-must-not-leak", "also-secret"} {
		if strings.Contains(got, secret) {
			t.Fatalf("the environment leaked %s:\n%s", secret, got)
		}
	}
	for _, want := range []string{"PATH=", "HOME=", "TMPDIR=/", "XDG_CACHE_HOME=/", "PAGER=cat"} {
		if !strings.Contains(got, want) {
			t.Errorf("the environment lacks %s:\n%s", want, got)
		}
	}
	if pwd := f.ok(Bash, obj{"command": "pwd -P"}); pwd != f.root {
		t.Errorf("the command ran in %s, want the workspace %s", pwd, f.root)
	}
}
