package proc

import (
	"bufio"
	"io"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi/internal/proc/proctest"
)

func attachSh(t *testing.T, script string, merge bool) (*Attached, int) {
	t.Helper()
	var pgid int
	a, err := Attach(Job{Path: "/bin/sh", Args: []string{"sh", "-c", script}, MergeStderr: merge,
		Started: func(g int) { pgid = g }})
	if err != nil {
		t.Fatal(err)
	}
	return a, pgid
}

// readAll reads a's stdout to EOF on a goroutine of its own and returns
// what it read once the returned channel is closed.
func readAll(a *Attached) (*strings.Builder, chan struct{}) {
	var b strings.Builder
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(&b, a.Stdout)
		close(done)
	}()
	return &b, done
}

func TestAnAttachedProcessIsTalkedToOverItsPipes(t *testing.T) {
	t.Parallel()
	a, pgid := attachSh(t, `while read line; do echo "got $line"; done; echo bye >&2`, false)
	r := bufio.NewReader(a.Stdout)
	for _, word := range []string{"one", "two"} {
		if _, err := io.WriteString(a.Stdin, word+"\n"); err != nil {
			t.Fatal(err)
		}
		line, err := r.ReadString('\n')
		if err != nil || line != "got "+word+"\n" {
			t.Fatalf("read %q, %v", line, err)
		}
	}
	a.Stdin.Close() // EOF ends the loop
	ex := a.Wait(nil)
	if !ex.State.Success() || strings.TrimSpace(string(ex.Stderr)) != "bye" || ex.Termed || ex.Killed {
		t.Fatalf("state %v stderr %q termed %v killed %v", ex.State, ex.Stderr, ex.Termed, ex.Killed)
	}
	proctest.AssertGroupGone(t, pgid)
}

func TestStopEscalatesToSIGKILLForAProcessThatIgnoresSIGTERM(t *testing.T) {
	t.Parallel()
	a, pgid := attachSh(t, `trap '' TERM; echo ready; while :; do sleep 0.05; done`, true)
	r := bufio.NewReader(a.Stdout)
	if line, err := r.ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("read %q, %v", line, err)
	}
	a.Stop(200 * time.Millisecond)
	select {
	case <-a.Exited():
	default:
		t.Fatal("Stop returned before the process exited")
	}
	ex := a.Wait(nil)
	if !ex.Termed || !ex.Killed {
		t.Fatalf("termed %v killed %v: the process ignored SIGTERM and must have been killed", ex.Termed, ex.Killed)
	}
	proctest.AssertGroupGone(t, pgid)
}

func TestWaitKillsWhatTheProcessLeftRunningInItsGroup(t *testing.T) {
	t.Parallel()
	// The background sleep keeps stdout open; once the leader exits, Wait
	// must kill it so that the reader sees EOF.
	a, pgid := attachSh(t, `sleep 60 & echo started`, true)
	out, done := readAll(a)
	ex := a.Wait(done)
	<-done
	if !ex.State.Success() || out.String() != "started\n" {
		t.Fatalf("state %v output %q", ex.State, out.String())
	}
	proctest.AssertGroupGone(t, pgid)
}

func TestKillEndsTheGroupAtOnce(t *testing.T) {
	t.Parallel()
	a, pgid := attachSh(t, `trap '' TERM; sleep 60`, false)
	a.Kill()
	ex := a.Wait(nil)
	if ex.Termed || !ex.Killed || ex.State.Success() {
		t.Fatalf("termed %v killed %v state %v", ex.Termed, ex.Killed, ex.State)
	}
	a.Kill() // after Wait: a no-op
	a.Stop(time.Millisecond)
	proctest.AssertGroupGone(t, pgid)
}

func TestWaitStopsListeningToAPipeHeldOutsideTheGroup(t *testing.T) {
	t.Parallel()
	// setsid takes the sleeper out of the group, and it holds stdout open.
	a, _ := attachSh(t, `setsid sh -c 'echo "pid $$"; exec sleep 30' & sleep 0.2; echo left`, true)
	out, done := readAll(a)
	a.Wait(done)
	<-done // the close in Wait ended the read
	var pid int
	for _, line := range strings.Split(out.String(), "\n") {
		if n, ok := strings.CutPrefix(line, "pid "); ok {
			pid, _ = strconv.Atoi(n)
		}
	}
	if pid <= 0 || !strings.Contains(out.String(), "left\n") {
		t.Fatalf("output %q", out.String())
	}
	_ = syscall.Kill(pid, syscall.SIGKILL) // the sleeper is ours to clean up
}

func TestAttachReportsAProgramThatCannotStart(t *testing.T) {
	t.Parallel()
	if _, err := Attach(Job{Path: "/nonexistent/agent", Args: []string{"agent"}}); err == nil {
		t.Fatal("Attach started a program that does not exist")
	}
}
