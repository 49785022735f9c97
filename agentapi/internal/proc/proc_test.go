package proc

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi/internal/proc/proctest"
)

func sh(script string) Job {
	return Job{Path: "/bin/sh", Args: []string{"sh", "-c", script}, MaxStdout: 1 << 20, Grace: 2 * time.Second}
}

func TestExitStatusAndOutputsAreReported(t *testing.T) {
	t.Parallel()
	ex, err := Run(context.Background(), sh("echo out; echo err >&2; exit 3"))
	if err != nil {
		t.Fatal(err)
	}
	if string(ex.Stdout) != "out\n" || string(ex.Stderr) != "err\n" || ex.State.ExitCode() != 3 || ex.Stopped != NotStopped || ex.Truncated() {
		t.Fatalf("got stdout %q stderr %q status %d stopped %v", ex.Stdout, ex.Stderr, ex.State.ExitCode(), ex.Stopped)
	}
}

func TestMergedStderrIsInterleavedWithStdout(t *testing.T) {
	t.Parallel()
	j := sh("echo one; echo two >&2; echo three")
	j.MergeStderr = true
	ex, err := Run(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	if string(ex.Stdout) != "one\ntwo\nthree\n" || len(ex.Stderr) != 0 {
		t.Fatalf("got stdout %q stderr %q", ex.Stdout, ex.Stderr)
	}
}

func TestOverflowDiscardKeepsTheCommandRunningAndCounts(t *testing.T) {
	t.Parallel()
	j := sh("head -c 100000 /dev/zero; echo; echo finished >&2")
	j.MaxStdout, j.Overflow = 1000, OverflowDiscard
	ex, err := Run(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	if len(ex.Stdout) != 1000 || ex.StdoutBytes != 100001 || !ex.Truncated() || ex.Stopped != NotStopped ||
		!ex.State.Success() || strings.TrimSpace(string(ex.Stderr)) != "finished" {
		t.Fatalf("kept %d of %d bytes, stopped %v, status %v, stderr %q", len(ex.Stdout), ex.StdoutBytes, ex.Stopped, ex.State, ex.Stderr)
	}
}

func TestOverflowStopEndsTheGroup(t *testing.T) {
	t.Parallel()
	j := sh("while :; do echo flood; done")
	j.MaxStdout = 1000
	var pgid int
	j.Started = func(g int) { pgid = g }
	ex, err := Run(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Stopped != StoppedSize || len(ex.Stdout) != 1000 || !ex.Termed {
		t.Fatalf("stopped %v, kept %d bytes, termed %v", ex.Stopped, len(ex.Stdout), ex.Termed)
	}
	proctest.AssertGroupGone(t, pgid)
}

func TestCancelSendsTermThenKill(t *testing.T) {
	t.Parallel()
	// Cancel once the shell ignores TERM (it then makes a file), however
	// long a loaded machine takes to get there.
	ready := filepath.Join(t.TempDir(), "ready")
	j := sh("trap '' TERM; touch " + ready + "; while :; do sleep 0.05; done")
	j.Grace = 100 * time.Millisecond
	var pgid int
	ctx, cancel := context.WithCancel(context.Background())
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for ctx.Err() == nil {
			if _, err := os.Stat(ready); err == nil {
				cancel()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	j.Started = func(g int) { pgid = g }
	ex, err := Run(ctx, j)
	cancel()
	<-watched
	if err != nil {
		t.Fatal(err)
	}
	if ex.Stopped != StoppedContext || !ex.Termed || !ex.Killed {
		t.Fatalf("stopped %v termed %v killed %v", ex.Stopped, ex.Termed, ex.Killed)
	}
	proctest.AssertGroupGone(t, pgid)
}

func TestBackgroundJobsDieWithTheLeader(t *testing.T) {
	t.Parallel()
	j := sh("sleep 30 & echo started")
	var pgid int
	j.Started = func(g int) { pgid = g }
	ex, err := Run(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	if string(ex.Stdout) != "started\n" || ex.Stopped != NotStopped {
		t.Fatalf("got %q, stopped %v", ex.Stdout, ex.Stopped)
	}
	proctest.AssertGroupGone(t, pgid)
}

func TestAMissingProgramIsAnError(t *testing.T) {
	t.Parallel()
	if _, err := Run(context.Background(), Job{Path: "/nonexistent/program", Args: []string{"x"}}); err == nil {
		t.Fatal("Run started a program that does not exist")
	}
}

func TestEnvironIsMinimalAndLaterWins(t *testing.T) {
	t.Setenv("WFRUN_PROC_SECRET", "s3cret")
	t.Setenv("HOME", "/home/test")
	env := Environ([]string{"WFRUN_PROC_PASSED"}, map[string]string{"HOME": "/elsewhere", "B": "2", "A": "1"})
	joined := strings.Join(env, "\n")
	if strings.Contains(joined, "s3cret") {
		t.Fatalf("an unnamed variable leaked: %v", env)
	}
	if !strings.Contains(joined, "HOME=/elsewhere") || strings.Contains(joined, "HOME=/home/test") {
		t.Fatalf("set did not win over the inherited value: %v", env)
	}
	if i, j := strings.Index(joined, "A=1"), strings.Index(joined, "B=2"); i < 0 || j < i {
		t.Fatalf("set's names are not in sorted order: %v", env)
	}
}

func TestSignalAndStderrNoteSayHowTheProcessEnded(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		script string
		signal string // "" for an exit with a status
		note   string
	}{
		{"an exit with a status and no stderr", "echo out; exit 3", "", ""},
		{"white space on stderr is no stderr", "printf ' \\n\\t' >&2; exit 1", "", ""},
		{"stderr is trimmed", "echo '  it broke  ' >&2; exit 1", "", "; stderr: it broke"},
		{"a cut tail says so", "head -c 10000 /dev/zero | tr '\\0' x >&2; exit 1", "", "; stderr: …" + strings.Repeat("x", StderrTail)},
		{"a signal", "echo dying >&2; kill -9 $$", "killed", "; stderr: dying"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ex, err := Run(context.Background(), sh(c.script))
			if err != nil {
				t.Fatal(err)
			}
			sig, ok := ex.Signal()
			if got := map[bool]string{true: sig.String(), false: ""}[ok]; got != c.signal {
				t.Errorf("Signal() = %q, %v; want %q", got, ok, c.signal)
			}
			if got := ex.StderrNote(); got != c.note {
				t.Errorf("StderrNote() = %.80q; want %.80q", got, c.note)
			}
		})
	}
	if _, ok := (Execution{}).Signal(); ok {
		t.Error("an Execution that never ran reports a signal")
	}
}

func TestValidNameRefusesWhatNoEnvironmentEntryCanCarry(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{"PATH": true, "a_b-1.x": true, "": false, "A=B": false, "=": false, "A\x00": false} {
		if got := ValidName(name); got != want {
			t.Errorf("ValidName(%q) = %v, want %v", name, got, want)
		}
	}
}

// A command that exits by itself just as its context ends has finished:
// it is not reported as stopped, whichever of the two supervise sees
// first. The hook holds supervise until both are ready, and select picks
// at random between ready cases, so each round is a coin toss for a
// supervise that trusts its first pick.
func TestACommandThatExitedAsItsContextEndedFinished(t *testing.T) {
	for range 32 {
		ctx, cancel := context.WithCancel(context.Background())
		testHookSupervise = func(exited <-chan struct{}) {
			<-exited
			cancel()
		}
		ex, err := Run(ctx, sh("echo done"))
		testHookSupervise = nil
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if ex.Stopped != NotStopped || ex.Termed || string(ex.Stdout) != "done\n" || !ex.State.Success() {
			t.Fatalf("stopped %v, termed %v, stdout %q, state %v; want a finished command", ex.Stopped, ex.Termed, ex.Stdout, ex.State)
		}
	}
}
