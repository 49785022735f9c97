package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wfrun/wfrun/engine"
	runfolder "github.com/wfrun/wfrun/engine/journal"
	"github.com/wfrun/wfrun/engine/ledger"
	"github.com/wfrun/wfrun/engine/listing"
	"github.com/wfrun/wfrun/engine/ralph"
)

// The commands of durable runs, in process, on one runs folder.

const stagedArgs = `{"topics":["alpha","beta","gamma","delta"]}`

// inRuns runs wfrun with runs as its runs folder.
func inRuns(t *testing.T, runs string, args ...string) outcome {
	t.Helper()
	return invoke(t, call{args: args, environ: map[string]string{"WFRUN_RUNS_DIR": runs}})
}

func listRuns(t *testing.T, runs string, args ...string) []ledger.Run {
	t.Helper()
	o := inRuns(t, runs, append([]string{"runs", "--json"}, args...)...)
	o.wantCode(t, exitCompleted)
	var out struct{ Runs []ledger.Run }
	if err := json.Unmarshal([]byte(o.stdout), &out); err != nil {
		t.Fatalf("runs --json: %v\n%s", err, o.stdout)
	}
	return out.Runs
}

func writeRules(t *testing.T, rules string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rules.json")
	if err := os.WriteFile(path, []byte(rules), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDurableCommands_RunsShowAndNote(t *testing.T) {
	runs := filepath.Join(t.TempDir(), "state", "runs")
	o := inRuns(t, runs, "testdata/staged.js", "--args", stagedArgs)
	o.wantCode(t, exitCompleted)
	res := o.result(t)
	if _, err := os.Stat(filepath.Join(runs, res.RunID, "journal.jsonl")); err != nil {
		t.Fatalf("the run has no journal: %v", err)
	}
	if _, err := os.Stat(filepath.Join(runs, "ledger.db")); err != nil {
		t.Fatalf("no ledger in the runs folder: %v", err)
	}
	inRuns(t, runs, "testdata/throws.js").wantCode(t, exitFailed)

	table := inRuns(t, runs, "runs")
	table.wantCode(t, exitCompleted)
	lines := strings.Split(strings.TrimSpace(table.stdout), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "ID") || !strings.Contains(table.stdout, res.RunID) || !strings.Contains(lines[2], "staged") {
		t.Fatalf("runs:\n%s", table.stdout)
	}
	for _, c := range []struct {
		args []string
		want int
	}{{nil, 2}, {[]string{"--status", "completed"}, 1}, {[]string{"--status", "failed"}, 1}, {[]string{"--name", "staged"}, 1}, {[]string{"--name", "nope"}, 0}} {
		if got := listRuns(t, runs, c.args...); len(got) != c.want {
			t.Errorf("runs %v: %d runs, want %d", c.args, len(got), c.want)
		}
	}
	inRuns(t, runs, "runs", "--status", "exploded").wantCode(t, exitUsage)

	note := inRuns(t, runs, "note", res.RunID, "the summary reads well")
	note.wantCode(t, exitCompleted)
	show := inRuns(t, runs, "show", res.RunID)
	show.wantCode(t, exitCompleted)
	for _, want := range []string{res.RunID + ` "staged" completed`, "Notes", "├─ #1 alpha", "Summary", "└─ #5 Summarize", "completed", "Timeline", "follow_up: the summary reads well", "finished: completed"} {
		if !strings.Contains(show.stdout, want) {
			t.Errorf("show does not say %q:\n%s", want, show.stdout)
		}
	}
	js := inRuns(t, runs, "show", res.RunID, "--json")
	js.wantCode(t, exitCompleted)
	var shownRun listing.Shown
	if err := json.Unmarshal([]byte(js.stdout), &shownRun); err != nil || len(shownRun.Children) != 5 || shownRun.Run.Status != ledger.RunCompleted || len(shownRun.Timeline) != 3 {
		t.Fatalf("show --json: %v\n%s", err, js.stdout)
	}
	inRuns(t, runs, "show", "wf_0123456789abcdef").wantCode(t, exitFailed)
	inRuns(t, runs, "show").wantCode(t, exitUsage)
	inRuns(t, runs, "note", res.RunID).wantCode(t, exitUsage)
	inRuns(t, runs, "check", "testdata/hello.js", "--runs-dir", runs).wantCode(t, exitUsage)
}

func TestDurableCommands_StopRetryResumeAndContinue(t *testing.T) {
	runs := t.TempDir()
	slow := writeRules(t, `{"rules":[{"match":"^Note on (gamma|delta)","delayMs":30000}]}`)
	first := make(chan outcome, 1)
	go func() {
		first <- inRuns(t, runs, "testdata/staged.js", "--args", stagedArgs, "--fake-rules", slow)
	}()
	var id string
	deadline := time.Now().Add(10 * time.Second)
	for id == "" && time.Now().Before(deadline) {
		for _, r := range listRuns(t, runs) {
			if r.Status == ledger.RunRunning {
				id = r.ID
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if id == "" {
		t.Fatal("the run did not show up as running")
	}
	stop := inRuns(t, runs, "stop", id, "--reason", "enough for today")
	stop.wantCode(t, exitCompleted)
	var row ledger.Run
	if err := json.Unmarshal([]byte(stop.stdout), &row); err != nil || row.Status != ledger.RunCancelled {
		t.Fatalf("stop printed %s (%v)", stop.stdout, err)
	}
	o := <-first
	o.wantCode(t, exitFailed)
	if res := o.result(t); res.StopReason != engine.StopCancelled || !strings.Contains(res.Error, "enough for today") {
		t.Fatalf("the stopped run: %+v", res)
	}
	inRuns(t, runs, "stop", id).wantCode(t, exitFailed) // nothing to stop
	cont := inRuns(t, runs, "continue", id)
	cont.wantCode(t, exitFailed)
	if !strings.Contains(cont.stderr+cont.stdout, "retry it instead") {
		t.Fatalf("continue of a cancelled run: %s %s", cont.stdout, cont.stderr)
	}

	retry := inRuns(t, runs, "retry", id, "--budget-tokens", "100000")
	retry.wantCode(t, exitCompleted)
	res := retry.result(t)
	if res.RunID == id || res.Agents.Replayed < 2 || res.AgentsSpawned != 5 {
		t.Fatalf("retry: %+v", res)
	}
	if got := listRuns(t, runs, "--status", "completed"); len(got) != 1 || got[0].ParentRun != id {
		t.Fatalf("the retry's lineage: %+v", got)
	}
	inRuns(t, runs, "retry", res.RunID).wantCode(t, exitFailed) // a completed run has nothing to retry

	// resume replays even a completed run; changed args make a changed prefix.
	again := inRuns(t, runs, "resume", res.RunID, "--args", `{"topics":["alpha","beta","omega","delta"]}`)
	again.wantCode(t, exitCompleted)
	if r := again.result(t); r.Agents.Replayed != 2 || r.Agents.Completed != 3 {
		t.Fatalf("resume with changed args: %+v", r.Agents)
	}
	inRuns(t, runs, "resume", "nope").wantCode(t, exitUsage)
	inRuns(t, runs, "resume", "wf_0123456789abcdef").wantCode(t, exitFailed)
	inRuns(t, runs, "retry", res.RunID, "--meta", "{}").wantCode(t, exitUsage)
}

func TestRalphCommand(t *testing.T) {
	rules := writeRules(t, `{"rules":[
	  {"match":"^You are round 1 of","reply":{"status":"continue","summary":"half","evidence":[],"nextSteps":["the rest"]}},
	  {"match":"^You are round 2 of","reply":{"status":"complete","summary":"done","evidence":["it works"],"nextSteps":[]}}]}`)
	o := invoke(t, call{args: []string{"ralph", "Finish the job", "--fake-rules", rules, "--max-rounds", "5"}})
	o.wantCode(t, exitCompleted)
	var res ralph.Result
	if err := json.Unmarshal([]byte(o.stdout), &res); err != nil || res.Ending != ralph.EndComplete || res.Rounds != 2 || res.Handoff.Summary != "done" {
		t.Fatalf("ralph: %v\n%s", err, o.stdout)
	}
	capped := invoke(t, call{args: []string{"ralph", "Finish the job", "--fake-rules", rules, "--max-rounds", "1"}})
	capped.wantCode(t, exitFailed)
	if !strings.Contains(capped.stdout, `"ending": "budget-limited"`) {
		t.Fatalf("ralph with one round:\n%s", capped.stdout)
	}
	invoke(t, call{args: []string{"ralph"}}).wantCode(t, exitUsage)
	invoke(t, call{args: []string{"ralph", "x", "--args", "{}"}}).wantCode(t, exitUsage)
	invoke(t, call{args: []string{"testdata/hello.js", "--max-rounds", "3"}}).wantCode(t, exitUsage)
}

func TestDurableCommands_ARunPastMaxRunFolderStopsAndResumesWithALargerBudget(t *testing.T) {
	runs := t.TempDir()
	script := filepath.Join(t.TempDir(), "big.js")
	if err := os.WriteFile(script, []byte(`export const meta = { name: 'big', description: 'agents with long prompts' }
const out = []
for (let i = 0; i < 8; i++) out.push((await agent('step ' + i + ' ' + 'x'.repeat(100000))).length)
return out`), 0o644); err != nil {
		t.Fatal(err)
	}
	o := inRuns(t, runs, script, "--max-run-folder", "1MiB")
	o.wantCode(t, exitFailed)
	res := o.result(t)
	if res.ErrorCode != engine.CodeResourceLimit || !strings.Contains(res.Error, "size budget of 1 MiB") || !strings.Contains(res.Error, "--max-run-folder") {
		t.Fatalf("the run past its budget: %+v", res)
	}
	again := inRuns(t, runs, "resume", res.RunID, "--max-run-folder", "16MiB")
	again.wantCode(t, exitCompleted)
	if r := again.result(t); r.Agents.Replayed == 0 || r.Agents.Replayed+r.Agents.Completed != 8 {
		t.Fatalf("the resume with a larger budget: %+v", r.Agents)
	}
	inRuns(t, runs, script, "--max-run-folder", "lots").wantCode(t, exitUsage)
}

// savedIsolation is the isolation a run's saved request asks for.
func savedIsolation(t *testing.T, runs, id string) engine.Isolation {
	t.Helper()
	folder, err := runfolder.OpenFolder(runs, id)
	if err != nil {
		t.Fatal(err)
	}
	data, err := folder.ReadFile(runfolder.RequestFile)
	if err != nil {
		t.Fatal(err)
	}
	var req engine.WorkflowStartRequest
	if err := json.Unmarshal(data, &req); err != nil {
		t.Fatal(err)
	}
	return req.Isolate
}

// A script runs in a child process unless --isolate none says otherwise,
// and a run started with none keeps it when resumed or retried.
func TestIsolation_ProcessByDefaultAndNoneKeptByResume(t *testing.T) {
	runs := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		o := inRuns(t, runs, args...)
		o.wantCode(t, exitCompleted)
		return o.result(t).RunID
	}
	if got := savedIsolation(t, runs, run("testdata/hello.js")); got != engine.IsolateProcess {
		t.Errorf("a plain run asked for %q, want process", got)
	}
	none := run("testdata/hello.js", "--isolate", "none")
	if got := savedIsolation(t, runs, none); got != engine.IsolateNone {
		t.Errorf("--isolate none asked for %q", got)
	}
	for _, c := range []struct {
		args []string
		want engine.Isolation
	}{
		{[]string{"resume", none}, engine.IsolateNone},
		{[]string{"resume", none, "--isolate", "process"}, engine.IsolateProcess},
	} {
		if got := savedIsolation(t, runs, run(c.args...)); got != c.want {
			t.Errorf("%v asked for %q, want %q", c.args, got, c.want)
		}
	}
	isolated := run("testdata/hello.js")
	if got := savedIsolation(t, runs, run("resume", isolated)); got != engine.IsolateProcess {
		t.Errorf("resume of an isolated run asked for %q", got)
	}
}
