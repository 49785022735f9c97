package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/internal/testkit/loadbound"
	"github.com/wfrun/wfrun/internal/testkit/testbin"
)

// buildWfrun builds the real binary once per test that needs a process.
func buildWfrun(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	return testbin.BuildT(t, "github.com/wfrun/wfrun/cmd/wfrun")
}

// startSlowRun starts the binary on a script whose agents take 5 s and
// returns once run.start and both agent.start events have appeared in its
// --events stream.
func startSlowRun(t *testing.T, bin string) (*exec.Cmd, *bytes.Buffer, <-chan error) {
	t.Helper()
	cmd := exec.Command(bin, "testdata/slow.js", "--fake-rules", "testdata/slow.rules.json", "--events", "-")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "WFRUN_RUNS_DIR=" + t.TempDir(), "WFRUN_STATE_DIR=" + t.TempDir()} // no OPENAI_* variables
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	waited := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		once, runStarted, agents := false, false, 0
		for sc.Scan() {
			line := sc.Text()
			runStarted = runStarted || strings.Contains(line, `"type":"run.start"`)
			if strings.Contains(line, `"type":"agent.start"`) {
				agents++
			}
			if !once && runStarted && agents == 2 {
				once = true
				close(started)
			}
		}
		if !once {
			close(started)
		}
		waited <- cmd.Wait()
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatal("run.start and two agent.start events did not appear within 10s")
	}
	return cmd, &stdout, waited
}

func TestSIGINTCancelsTheRealProcessWhichPrintsTheResultAndExits130(t *testing.T) {
	bin := buildWfrun(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, stdout, waited := startSlowRun(t, bin)
			timer := loadbound.Start(t)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			var err error
			select {
			case err = <-waited:
			case <-time.After(60 * time.Second):
				cmd.Process.Kill()
				<-waited
				t.Fatal("wfrun did not exit within 60s of the signal")
			}
			took := timer.Stop()
			if took.Over(3 * time.Second) {
				t.Fatalf("wfrun exited %v after the signal; want within 3s on an idle machine", took)
			}
			if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
				t.Fatalf("exit status %d (%v), want 130; stdout:\n%s", code, err, stdout)
			}
			var res engine.WorkflowResult
			if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
				t.Fatalf("stdout is not a result (%v):\n%s", err, stdout)
			}
			name := map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM"}[sig]
			if res.StopReason != engine.StopCancelled || res.Agents.Cancelled != 2 || !strings.Contains(res.Error, "interrupted by "+name) {
				t.Fatalf("result = %+v", res)
			}
			t.Logf("exited %v after the signal", took)
		})
	}
}

func TestASecondSIGINTExits130AtOnce(t *testing.T) {
	bin := buildWfrun(t)
	cmd, _, waited := startSlowRun(t, bin)
	timer := loadbound.Start(t)
	for range 2 {
		if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-waited:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-waited
		t.Fatal("wfrun did not exit within 60s")
	}
	if took := timer.Stop(); took.Over(3 * time.Second) {
		t.Fatalf("wfrun exited %v after two SIGINTs; want within 3s on an idle machine", took)
	}
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Fatalf("exit status %d, want 130", code)
	}
}
