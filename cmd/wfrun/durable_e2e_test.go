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
	"time"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/ledger"
	"github.com/wfrun/wfrun/engine/listing"
)

// The kill-and-resume test: the real wfrun process, its agents on the
// openai provider against the real mock server (aimock), is killed with
// SIGKILL while two of its four notes are still being answered. The run
// is found abandoned, resumed as a new run and continued in place; the
// mock server's request journal shows that the finished agents are not
// asked again and the others are, and the results equal an uninterrupted
// run's.

// askedFor counts the mock server's requests whose last user message
// starts with each prompt.
func askedFor(t *testing.T, baseURL string, prompts ...string) map[string]int {
	t.Helper()
	counts := map[string]int{}
	for _, e := range journal(t, baseURL) {
		var last string
		for _, m := range e.Body.Messages {
			if m.Role == "user" {
				last = m.Content
			}
		}
		for _, p := range prompts {
			if strings.HasPrefix(last, p) {
				counts[p]++
			}
		}
	}
	return counts
}

func TestEndToEnd_AKilledRunIsResumedWithoutPayingTwiceForItsFinishedAgents(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a node server and builds the binary")
	}
	baseURL := startAimock(t, filepath.Join(aimockDir, "fixtures", "durable.json"))
	bin := buildWfrun(t)
	runs := t.TempDir()
	environ := []string{"PATH=" + os.Getenv("PATH"), "OPENAI_BASE_URL=" + baseURL, "OPENAI_API_KEY=mock",
		"WFRUN_MODEL=gpt-4o-mini", "WFRUN_RUNS_DIR=" + runs, "WFRUN_HEARTBEAT=100ms", "WFRUN_STATE_DIR=" + t.TempDir()}
	wfrunCmd := func(args ...string) *exec.Cmd {
		cmd := exec.Command(bin, args...)
		cmd.Env = environ
		return cmd
	}
	runWfrun := func(args ...string) (engine.WorkflowResult, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		cmd := wfrunCmd(args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var res engine.WorkflowResult
		if jerr := json.Unmarshal(stdout.Bytes(), &res); jerr != nil || err != nil {
			t.Fatalf("wfrun %v: %v, %v\nstdout:\n%s\nstderr:\n%s", args, err, jerr, stdout.String(), stderr.String())
		}
		return res, stderr.String()
	}
	notes := []string{"Note on alpha.", "Note on beta.", "Note on gamma.", "Note on delta.", "Summarize:"}
	want := func(step string, alpha, beta, gamma, delta, summary int) {
		t.Helper()
		got := askedFor(t, baseURL, notes...)
		exp := map[string]int{notes[0]: alpha, notes[1]: beta, notes[2]: gamma, notes[3]: delta, notes[4]: summary}
		for _, p := range notes {
			if got[p] != exp[p] {
				t.Fatalf("%s: the mock server was asked %v, want %v", step, got, exp)
			}
		}
	}

	// The run, killed once alpha and beta are in its journal.
	cmd := wfrunCmd("testdata/staged.js", "--args", stagedArgs, "--provider", "openai")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var id string
	deadline := time.Now().Add(20 * time.Second)
	for {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatal("two agents were not journaled within 20s")
		}
		folders, _ := filepath.Glob(filepath.Join(runs, "wf_*"))
		if len(folders) == 1 {
			id = filepath.Base(folders[0])
			if lines(t, filepath.Join(folders[0], "journal.jsonl")) >= 2 {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	// show reads the run from the ledger; until polls it (a generous
	// deadline: on a loaded machine the beats come late).
	show := func() (listing.Shown, bool) {
		var r listing.Shown
		out, err := wfrunCmd("show", id, "--json").Output()
		return r, err == nil && json.Unmarshal(out, &r) == nil
	}
	until := func(what string, ok func(listing.Shown) bool) listing.Shown {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if r, read := show(); read && ok(r) {
				return r
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("%s: not within 60s", what)
			}
		}
	}
	// The ledger's snapshots of the agents are written each heartbeat:
	// wait until they show gamma and delta running (they take 3 s).
	until("the ledger shows gamma and delta running", func(r listing.Shown) bool {
		running := 0
		for _, c := range r.Children {
			if (c.Label == "gamma" || c.Label == "delta") && c.Status == ledger.ChildRunning {
				running++
			}
		}
		return running == 2
	})
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	// gamma and delta were being answered (the ledger shows them running,
	// below); the mock server journals only the requests it answered.
	want("after the kill", 1, 1, 0, 0, 0)

	// The lease runs out (ten beats of 100 ms): an open of the ledger
	// after that finds the run abandoned, with the unfinished agents.
	shownRun := until("the killed run is abandoned once its lease ran out", func(r listing.Shown) bool { return r.Run.Status == ledger.RunAbandoned })
	status := map[string]ledger.ChildStatus{}
	for _, c := range shownRun.Children {
		status[c.Label] = c.Status
	}
	if status["alpha"] != ledger.ChildCompleted || status["beta"] != ledger.ChildCompleted || status["gamma"] != ledger.ChildAbandoned || status["delta"] != ledger.ChildAbandoned {
		t.Fatalf("the killed run's agents: %v", status)
	}

	// wfrun resume: a new run that replays alpha and beta.
	resumed, _ := runWfrun("resume", id)
	if resumed.StopReason != engine.StopCompleted || resumed.RunID == id || resumed.Agents.Replayed != 2 || resumed.Agents.Completed != 3 {
		t.Fatalf("resumed: %+v", resumed)
	}
	want("after the resume", 1, 1, 1, 1, 1)

	// wfrun continue: the abandoned run itself, resumed in place.
	continued, _ := runWfrun("continue", id)
	if continued.StopReason != engine.StopCompleted || continued.RunID != id || continued.Agents.Replayed != 2 {
		t.Fatalf("continued: %+v", continued)
	}
	want("after the continue", 1, 1, 2, 2, 2)
	if data, err := os.ReadFile(filepath.Join(runs, id, "result.json")); err != nil || !bytes.Contains(data, []byte(`"stopReason": "completed"`)) {
		t.Fatalf("the continued run's result.json: %s (%v)", data, err)
	}

	// An uninterrupted run gives the same value.
	fresh, _ := runWfrun("testdata/staged.js", "--args", stagedArgs, "--provider", "openai")
	for _, r := range []engine.WorkflowResult{resumed, continued} {
		if compact(t, r.Value) != compact(t, fresh.Value) {
			t.Fatalf("value %s, an uninterrupted run's %s", r.Value, fresh.Value)
		}
	}
	if !strings.Contains(compact(t, fresh.Value), "Gamma takes its time.") {
		t.Fatalf("value %s", fresh.Value)
	}
}

// lines counts the complete lines of a file (0 when it does not exist).
func lines(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		n++
	}
	return n
}
