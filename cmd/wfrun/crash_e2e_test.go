package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/wfrun/wfrun/engine"
)

// The crash test: the real wfrun process is killed with SIGKILL while an
// agent blocks, and the run is resumed at once — not after its lease —
// because its process is gone and its run lock is free. Before the kill,
// a child's trick (replacing the lock file) does not make the live run
// look abandoned.

func TestEndToEnd_AKilledRunIsResumedAtOnceNotAfterItsLease(t *testing.T) {
	bin := buildWfrun(t)
	runs, state := t.TempDir(), t.TempDir()
	rules := filepath.Join(t.TempDir(), "blocks.json")
	if err := os.WriteFile(rules, []byte(`{"rules":[{"match":"^blocks","delayMs":600000}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	// The default heartbeat: a lease of 20 s, which the resume must not wait for.
	environ := []string{"PATH=" + os.Getenv("PATH"), "WFRUN_RUNS_DIR=" + runs, "WFRUN_STATE_DIR=" + state}
	wfrun := func(args ...string) (stdout, stderr string, code int) {
		t.Helper()
		var out, errb bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Env, cmd.Stdout, cmd.Stderr = environ, &out, &errb
		err := cmd.Run()
		code = cmd.ProcessState.ExitCode()
		if err != nil && code < 0 {
			t.Fatal(err)
		}
		return out.String(), errb.String(), code
	}

	run := exec.Command(bin, "testdata/blocks.js", "--fake-rules", rules, "--events", "-")
	run.Env = environ
	events, err := run.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	blocked := make(chan string, 1) // the run id, once the second agent has started
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(events)
		sent := false
		for sc.Scan() {
			var ev engine.Event
			if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == engine.EventAgentStart && ev.Seq == 2 && !sent {
				blocked <- ev.RunID
				sent = true
			}
		}
		if !sent {
			close(blocked)
		}
	}()
	id, ok := <-blocked
	if !ok {
		run.Process.Kill()
		<-drained
		run.Wait()
		t.Fatal("the run ended before its second agent started")
	}

	// A child replaces the lock file: the run is still alive, and resume
	// says so.
	lock := filepath.Join(runs, id, "lock")
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(lock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if stdout, stderr, code := wfrun("resume", id); code != exitFailed || !strings.Contains(stdout, "is still running") {
		t.Fatalf("resume of a live run: exit %d\n%s\n%s", code, stdout, stderr)
	}

	// SIGKILL, and the process is left a zombie (not reaped yet): gone all
	// the same.
	if err := run.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, run.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		t.Fatal(err)
	}
	quick := filepath.Join(t.TempDir(), "quick.json")
	if err := os.WriteFile(quick, []byte(`{"rules":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := wfrun("resume", id, "--fake-rules", quick)
	<-drained
	_ = run.Wait()
	if code != exitCompleted {
		t.Fatalf("resume right after the kill: exit %d\n%s\n%s", code, stdout, stderr)
	}
	var res engine.WorkflowResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || res.Agents.Replayed != 1 || res.Agents.Completed != 1 {
		t.Fatalf("resumed: %+v, %v\n%s", res, err, stdout)
	}
	out, _, _ := wfrun("show", id, "--json")
	if !strings.Contains(out, "its process") || !strings.Contains(out, "is gone and its run lock is free") {
		t.Fatalf("the killed run's timeline does not say why it was abandoned:\n%s", out)
	}
}
