package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wfrun/wfrun/engine"
)

// The browser test of wfrun ui: the real binary serves a runs folder that
// real wfrun processes filled (a completed run with phases, a failure and a
// timeout, a failed run, a cancelled one, one whose process was killed) and
// in which another wfrun process is running a slow script. Playwright
// (playwright-core, pinned in testdata/uibrowser and installed by .ci/run
// with npm ci) drives the machine's Chromium through the list, the run
// page, the timeline, a live update and the verbs, and stops the live run
// from the page. The screenshots go to the test's artifact folder (kept with
// go test -artifacts); -update also writes docs/ui.png.

const uiBrowserDir = "../../testdata/uibrowser"

const uiTestdata = "../../engine/ui/testdata"

// chromiumPath is the machine's Chromium (Debian's package chromium).
func chromiumPath() string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

func TestEndToEnd_TheWebPageInARealBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("builds wfrun, starts several wfrun processes and a browser")
	}
	browser := chromiumPath()
	if browser == "" {
		t.Skip("chromium is not installed; install it (apt-get install chromium), as .ci/run does when it is missing")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	if _, err := os.Stat(filepath.Join(uiBrowserDir, "node_modules", "playwright-core", "package.json")); err != nil {
		t.Skipf("playwright-core is not installed; run: npm ci --prefix testdata/uibrowser (%v)", err)
	}
	bin := buildWfrun(t)
	runs := filepath.Join(t.TempDir(), "runs")
	environ := append(os.Environ(), "WFRUN_RUNS_DIR="+runs, "WFRUN_HEARTBEAT=100ms")
	wfrun := func(args ...string) *exec.Cmd {
		cmd := exec.Command(bin, args...)
		cmd.Env = environ
		return cmd
	}
	// result runs wfrun to its end and returns its result.
	result := func(args ...string) engine.WorkflowResult {
		t.Helper()
		var out, errs bytes.Buffer
		cmd := wfrun(args...)
		cmd.Stdout, cmd.Stderr = &out, &errs
		_ = cmd.Run() // a failed run exits 1 and still prints its result
		var res engine.WorkflowResult
		if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.RunID == "" {
			t.Fatalf("wfrun %v: %v\n%s\n%s", args, err, out.String(), errs.String())
		}
		return res
	}
	// started starts wfrun and returns once its run has a folder.
	started := func(args ...string) (*exec.Cmd, string, *bytes.Buffer) {
		t.Helper()
		before, _ := filepath.Glob(filepath.Join(runs, "wf_*"))
		var out bytes.Buffer
		cmd := wfrun(args...)
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			after, _ := filepath.Glob(filepath.Join(runs, "wf_*"))
			for _, f := range after {
				if !slices.Contains(before, f) && fileHasLine(filepath.Join(f, "events.jsonl"), `"agent.start"`) {
					return cmd, filepath.Base(f), &out
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("wfrun %v started no agent within 20s", args)
		return nil, "", nil
	}

	completed := result(filepath.Join(uiTestdata, "review.js"), "--args", "@"+filepath.Join(uiTestdata, "review.args.json"),
		"--fake-rules", filepath.Join(uiTestdata, "review.rules.json"), "--concurrency", "3")
	failed := result("testdata/throws.js")
	// Cancelled: SIGINT while its agents wait.
	cmd, cancelled, _ := started("testdata/slow.js", "--fake-rules", "testdata/slow.rules.json")
	_ = cmd.Process.Signal(syscall.SIGINT)
	_ = cmd.Wait()
	// Abandoned: SIGKILL, and the lease (ten beats of 100 ms) runs out.
	cmd, abandoned, _ := started("testdata/slow.js", "--fake-rules", "testdata/slow.rules.json")
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	time.Sleep(1500 * time.Millisecond)
	// The run in progress: a note every 1.5 s, for a minute unless stopped.
	liveCmd, live, liveOut := started(filepath.Join(uiTestdata, "live.js"), "--args", `{"count": 40}`,
		"--fake-rules", filepath.Join(uiTestdata, "live.rules.json"))

	const token = "browser-test-token"
	uiCmd := wfrun("ui", "--addr", "127.0.0.1:0")
	uiCmd.Env = append(slices.Clone(environ), "WFRUN_AUTH_TOKEN="+token)
	stderr, err := uiCmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := uiCmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = uiCmd.Process.Kill(); _ = uiCmd.Wait() })
	base := serveAddress(t, stderr)

	shots := t.ArtifactDir()
	docsShot := ""
	if *update {
		docsShot, _ = filepath.Abs("../../docs/ui.png")
	}
	config, _ := json.Marshal(map[string]any{
		"base": base, "token": token, "chromium": browser, "shots": shots, "docsShot": docsShot,
		"runs": map[string]string{"completed": completed.RunID, "failed": failed.RunID, "cancelled": cancelled,
			"abandoned": abandoned, "live": live},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	e2e := exec.CommandContext(ctx, node, "e2e.mjs", string(config))
	e2e.Dir = uiBrowserDir
	e2e.WaitDelay = 5 * time.Second
	out, err := e2e.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "ui-e2e: all steps passed") {
		t.Fatalf("node e2e.mjs: %v\n%s", err, out)
	}
	t.Logf("%s", out)

	// The live run was stopped from the page: its own process cancelled it.
	waited := make(chan error, 1)
	go func() { waited <- liveCmd.Wait() }()
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		t.Fatal("the live run's process did not end after the stop")
	}
	var res engine.WorkflowResult
	if err := json.Unmarshal(liveOut.Bytes(), &res); err != nil || res.StopReason != engine.StopCancelled {
		t.Fatalf("the live run's result: %v %s", err, liveOut.String())
	}
	for _, name := range []string{"list.png", "run.png", "live.png", "stopped.png"} {
		if st, err := os.Stat(filepath.Join(shots, name)); err != nil || st.Size() < 10_000 {
			t.Errorf("the screenshot %s: %v", name, err)
		}
	}
	t.Logf("screenshots in %s", shots)

	// SIGINT stops the page's server; it exits 130 like any wfrun interrupted.
	_ = uiCmd.Process.Signal(syscall.SIGINT)
	err = uiCmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitInterrupted {
		t.Errorf("wfrun ui after SIGINT: %v", err)
	}
}

// serveAddress reads wfrun ui's notice of where it listens.
func serveAddress(t *testing.T, stderr io.Reader) string {
	t.Helper()
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+)/`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				break
			}
		}
		for sc.Scan() { // keep draining so the server never blocks on stderr
		}
	}()
	select {
	case base := <-found:
		return base
	case <-time.After(20 * time.Second):
		t.Fatal("wfrun ui did not say where it listens within 20s")
	}
	return ""
}

func fileHasLine(path, needle string) bool {
	data, err := os.ReadFile(path)
	return err == nil && bytes.Contains(data, []byte(needle))
}
