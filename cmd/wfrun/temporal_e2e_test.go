package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wfrun/wfrun/engine"
)

// The end-to-end test of the distributed mode as a person uses it: the dev
// server (the wfrun-temporal binary that .ci/run builds from the nested
// module and names in WFRUN_TEMPORAL_DEV), `wfrun worker` as a process of
// its own, and `wfrun SCRIPT.js --temporal` printing the same result as
// the same script in process.

// startTemporalDev starts the dev server on a free loopback port and
// returns its address, skipping the test without the binary. With no
// extra arguments it keeps its history in a test folder; otherwise they
// replace that (--tls DIR, say), and its first line must contain ready.
func startTemporalDev(t *testing.T, ready string, extra ...string) string {
	t.Helper()
	bin := os.Getenv("WFRUN_TEMPORAL_DEV")
	if bin == "" {
		t.Skip("WFRUN_TEMPORAL_DEV is not set: build engine/temporal/server/cmd/wfrun-temporal (GOTOOLCHAIN=go1.27.3) and name it there")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	if len(extra) == 0 {
		extra = []string{"--db", filepath.Join(t.TempDir(), "temporal.db")}
	}
	cmd := exec.Command(bin, append([]string{"dev", "--port", strconv.Itoa(port)}, extra...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || !strings.Contains(line, ready) {
		t.Fatalf("the dev server did not come up: %q %v", line, err)
	}
	return "127.0.0.1:" + strconv.Itoa(port)
}

// workerProcess is a `wfrun worker` a test started.
type workerProcess struct {
	cmd    *exec.Cmd
	stderr *syncBuffer
	exited chan error // its Wait's error; whoever takes it puts it back
}

// startWorker starts `wfrun worker --provider fake` with the flags
// shared, and waits until it says it serves queue; the process is killed
// at the test's end.
func startWorker(t *testing.T, bin string, env []string, queue string, shared []string) *workerProcess {
	t.Helper()
	worker := exec.Command(bin, append([]string{"worker", "--provider", "fake"}, shared...)...)
	worker.Env = env
	wErr := &syncBuffer{}
	worker.Stderr = wErr
	if err := worker.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- worker.Wait() }()
	t.Cleanup(func() {
		_ = worker.Process.Kill()
		<-exited
	})
	for !strings.Contains(wErr.String(), "worker of task queue "+queue) {
		select {
		case err := <-exited:
			exited <- err // for the cleanup
			t.Fatalf("the worker ended before it served %s (%v): %s", queue, err, wErr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	return &workerProcess{cmd: worker, stderr: wErr, exited: exited}
}

func TestTemporalE2E_AWorkerProcessRunsTheScriptAndTheResultMatchesInProcess(t *testing.T) {
	addr := startTemporalDev(t, "Temporal dev server at")
	bin := buildWfrun(t)
	home := t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
	shared := []string{"--temporal", addr, "--task-queue", "cli-e2e", "--payloads", filepath.Join(home, "payloads")}

	worker := startWorker(t, bin, env, "cli-e2e", shared)
	wErr, exited := worker.stderr, worker.exited

	events := filepath.Join(home, "events.jsonl")
	run := exec.Command(bin, append([]string{"testdata/temporal.js", "--args", `{"n":4}`, "--events", events}, shared...)...)
	run.Env = env
	var stdout, stderr bytes.Buffer
	run.Stdout, run.Stderr = &stdout, &stderr
	if err := run.Run(); err != nil {
		t.Fatalf("wfrun --temporal: %v\nstdout:\n%s\nstderr:\n%s\nworker:\n%s", err, stdout.String(), stderr.String(), wErr.String())
	}
	var remote engine.WorkflowResult
	if err := json.Unmarshal(stdout.Bytes(), &remote); err != nil {
		t.Fatalf("result is not JSON: %v\n%s", err, stdout.String())
	}
	local := wfrun(t, "testdata/temporal.js", "--args", `{"n":4}`, "--provider", "fake")
	local.wantCode(t, exitCompleted)
	var inProcess engine.WorkflowResult
	if err := json.Unmarshal([]byte(local.stdout), &inProcess); err != nil {
		t.Fatal(err)
	}
	if compact(t, remote.Value) != compact(t, inProcess.Value) || remote.Agents != inProcess.Agents ||
		remote.Usage != inProcess.Usage || remote.StopReason != engine.StopCompleted || remote.AgentsSpawned != 8 {
		t.Fatalf("on Temporal %+v %s\nin process %+v %s", remote, remote.Value, inProcess, inProcess.Value)
	}
	raw, err := os.ReadFile(events)
	if err != nil {
		t.Fatal(err)
	}
	evs := readEvents(t, string(raw))
	if n := len(evs); n != 2+2+1+8*2 { // run.start/end, two phases, a log, eight agents
		t.Fatalf("%d events:\n%s", n, raw)
	}

	// The run is listed by its search attributes (visibility catches up).
	deadline := time.Now().Add(20 * time.Second)
	for {
		runs := exec.Command(bin, "runs", "--temporal", addr, "--parent", "cli", "--json")
		runs.Env = env
		out, err := runs.Output()
		if err == nil && strings.Contains(string(out), remote.RunID) && strings.Contains(string(out), `"status": "completed"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("wfrun runs --temporal: %v\n%s", err, out)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// --status and --name are the server's query: the run is found by
	// them, and not by another status.
	for _, c := range []struct {
		args  []string
		found bool
	}{
		{[]string{"--status", "completed", "--name", "distributed"}, true},
		{[]string{"--status", "error", "--name", "distributed"}, false},
		{[]string{"--name", "another"}, false},
	} {
		runs := exec.Command(bin, append([]string{"runs", "--temporal", addr, "--json"}, c.args...)...)
		runs.Env = env
		out, err := runs.Output()
		if err != nil || strings.Contains(string(out), remote.RunID) != c.found {
			t.Fatalf("wfrun runs --temporal %s: %v, want found %v\n%s", strings.Join(c.args, " "), err, c.found, out)
		}
	}

	_ = worker.cmd.Process.Signal(syscall.SIGINT)
	select {
	case err := <-exited:
		exited <- err
		if err != nil {
			t.Fatalf("the worker exited with %v\n%s", err, wErr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the worker did not stop on SIGINT")
	}
}
