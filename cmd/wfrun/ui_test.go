package main

import (
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestUIRefusesWhatItCannotUse(t *testing.T) {
	for _, c := range []struct {
		args    []string
		environ map[string]string
		says    string
	}{
		{[]string{"ui", "--addr", "0.0.0.0:7777"}, nil, "pass --auth-token"},
		{[]string{"ui", "--addr", "7777"}, nil, "is not HOST:PORT"},
		{[]string{"ui", "--args", "{}"}, nil, "runs no script of its own"},
		{[]string{"ui", "--events", "-"}, nil, "--events does not apply to ui"},
		{[]string{"ui", "--http", "127.0.0.1:1"}, nil, "--http does not apply to ui (it runs no script of its own: the page shows each run's events from its folder, and its retries and continues take the run's saved request): it belongs to wfrun mcp"},
		{[]string{"ui", "runs"}, nil, "ui takes only flags"},
		{[]string{"runs", "--addr", "127.0.0.1:1"}, nil, "--addr does not apply to runs: it belongs to wfrun ui; drop it"},
	} {
		o := invoke(t, call{args: c.args, environ: c.environ})
		o.wantCode(t, exitUsage)
		if !strings.Contains(o.stderr, c.says) {
			t.Errorf("wfrun %v: %q does not say %q", c.args, o.stderr, c.says)
		}
	}
	// A token in the environment lets it bind to every interface.
	sigs := make(chan os.Signal, 1)
	done := make(chan outcome, 1)
	var stderr syncBuffer
	go func() {
		done <- invoke(t, call{args: []string{"ui", "--addr", "0.0.0.0:0"}, environ: map[string]string{"WFRUN_AUTH_TOKEN": "tok"}, signals: sigs, stderr: &stderr})
	}()
	waitForText(t, &stderr, "token required")
	if strings.Contains(stderr.String(), "tok ") || strings.Contains(stderr.String(), "=tok") {
		t.Errorf("the notice shows the token: %s", stderr.String())
	}
	sigs <- syscall.SIGINT
	(<-done).wantCode(t, exitInterrupted)
}

func TestUIServesTheLedgerUntilASignal(t *testing.T) {
	runs := t.TempDir()
	wfrunIn(t, runs, "testdata/hello.js").wantCode(t, exitCompleted)
	sigs := make(chan os.Signal, 1)
	done := make(chan outcome, 1)
	var stderr syncBuffer
	go func() {
		done <- invoke(t, call{args: []string{"ui", "--addr", "127.0.0.1:0", "--runs-dir", runs}, signals: sigs, stderr: &stderr})
	}()
	waitForText(t, &stderr, "serving the runs of")
	m := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+)/`).FindStringSubmatch(stderr.String())
	if m == nil {
		t.Fatalf("no address in %q", stderr.String())
	}
	resp, err := http.Get(m[1] + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "hello") {
		t.Fatalf("GET / = %d\n%s", resp.StatusCode, body)
	}
	sigs <- syscall.SIGINT
	select {
	case o := <-done:
		o.wantCode(t, exitInterrupted)
	case <-time.After(15 * time.Second):
		t.Fatal("wfrun ui did not stop on SIGINT")
	}
}

// wfrunIn runs wfrun in process with its runs under runs.
func wfrunIn(t *testing.T, runs string, args ...string) outcome {
	t.Helper()
	return invoke(t, call{args: append(args, "--runs-dir", runs)})
}

func waitForText(t *testing.T, b *syncBuffer, s string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(b.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q within 15s in %q", s, b.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}
