package engine_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/enginetest"
	"github.com/wfrun/wfrun/engine/journal"
	"github.com/wfrun/wfrun/engine/ledger"
	"github.com/wfrun/wfrun/runtime/eventcheck"
)

// staged fans out to four notes, two of them slow, and sums them up.
const staged = `export const meta = { name: 'staged', description: 'notes, then a summary' }
phase('Notes')
const notes = await parallel(args.topics.map(t => () => agent('note on ' + t, {label: t})))
phase('Summary')
const summary = await agent('summarize ' + notes.join(' | '))
return { notes, summary }`

var stagedArgs = json.RawMessage(`{"topics":["alpha","beta","gamma","delta"]}`)

// countingProvider is the fake provider, counting the children it runs by prompt.
type countingProvider struct {
	agentapi.Provider
	mu    sync.Mutex
	calls map[string]int
}

func newCountingFake(t *testing.T, rules string) *countingProvider {
	t.Helper()
	r, err := fake.Parse([]byte(rules))
	if err != nil {
		t.Fatal(err)
	}
	return &countingProvider{Provider: fake.New(fake.Options{Rules: r}), calls: map[string]int{}}
}

func (p *countingProvider) Run(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
	p.mu.Lock()
	p.calls[req.Prompt]++
	p.mu.Unlock()
	return p.Provider.Run(ctx, req)
}

func (p *countingProvider) count(prefix string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for prompt, c := range p.calls {
		if strings.HasPrefix(prompt, prefix) {
			n += c
		}
	}
	return n
}

const slowRules = `{"rules":[{"match":"note on (gamma|delta)","delayMs":30000}]}`

func durableEngine(t *testing.T, runs string, p agentapi.Provider) *engine.Engine {
	t.Helper()
	return enginetest.New(t, engine.Config{RunsDir: runs, Providers: []agentapi.Provider{p}, Heartbeat: 20 * time.Millisecond})
}

// startAndCancelAfter starts req and cancels it once n agents have completed.
func startAndCancelAfter(t *testing.T, eng *engine.Engine, req engine.WorkflowStartRequest, n int) engine.WorkflowResult {
	t.Helper()
	if req.Parent == "" {
		req.Parent = "test"
	}
	done := make(chan struct{})
	var once sync.Once
	completed := 0
	var mu sync.Mutex
	req.OnEvent = func(ev engine.Event) {
		if ev.Type == engine.EventAgentEnd && ev.Outcome == agentapi.StatusCompleted {
			mu.Lock()
			completed++
			if completed == n {
				once.Do(func() { close(done) })
			}
			mu.Unlock()
		}
	}
	run, err := eng.Start(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the agents did not complete")
	}
	run.Cancel("the test stops it")
	return run.Wait()
}

func TestDurable_AnEngineWithoutRunsDirWritesNothing(t *testing.T) {
	dir := t.TempDir()
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	eng := newEngine(t, engine.Config{})
	if res, _ := start(t, eng, engine.WorkflowStartRequest{Script: trivial}); res.StopReason != engine.StopCompleted {
		t.Fatalf("%+v", res)
	}
	if eng.Ledger() != nil {
		t.Fatal("an engine without RunsDir has a ledger")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("the run wrote %v", entries)
	}
	_, err := eng.Start(context.Background(), engine.WorkflowStartRequest{Script: trivial, Parent: "t", ResumeFromRunId: "wf_0123456789abcdef"})
	if engine.CodeOf(err) != engine.CodeInvalidRequest || !strings.Contains(err.Error(), "keeps no runs") {
		t.Fatalf("resume without a runs folder: %v", err)
	}
}

func TestDurable_ARunKeepsItsFolderAndLedgerRow(t *testing.T) {
	runs := filepath.Join(t.TempDir(), ".wfrun", "runs")
	eng := durableEngine(t, runs, newCountingFake(t, `{"rules":[]}`))
	res, rec := start(t, eng, engine.WorkflowStartRequest{Script: staged, Args: stagedArgs})
	if res.StopReason != engine.StopCompleted {
		t.Fatalf("%+v", res)
	}
	folder, err := journal.OpenFolder(runs, res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	var req engine.WorkflowStartRequest
	data, _ := folder.ReadFile(journal.RequestFile)
	if err := json.Unmarshal(data, &req); err != nil || req.Script != staged || !bytes.Contains(data, []byte("t => () => agent")) {
		t.Fatalf("request.json: %s (%v)", data, err)
	}
	if script, _ := folder.ReadFile(journal.ScriptFile); string(script) != staged {
		t.Fatalf("script.js: %s", script)
	}
	var saved engine.WorkflowResult
	data, _ = folder.ReadFile(journal.ResultFile)
	var value bytes.Buffer
	if err := json.Unmarshal(data, &saved); err != nil || json.Compact(&value, saved.Value) != nil || saved.RunID != res.RunID || value.String() != string(res.Value) {
		t.Fatalf("result.json: %s", data)
	}
	entries, err := eng.RunJournal(res.RunID)
	if err != nil || len(entries) != 5 {
		t.Fatalf("journal: %d entries, %v", len(entries), err)
	}
	evs := readEventLog(t, folder)
	if len(evs) != len(rec.Events()) {
		t.Fatalf("events.jsonl has %d events, the sink saw %d", len(evs), len(rec.Events()))
	}
	if _, err := os.Stat(filepath.Join(runs, "ledger.db")); err != nil {
		t.Fatalf("the ledger is not in the runs folder: %v", err)
	}
	row, err := eng.Ledger().Get(context.Background(), res.RunID)
	if err != nil || row.Status != ledger.RunCompleted || row.Name != "staged" || row.Owner != "test" || row.Agents.Completed != 5 || row.Usage != res.Usage || row.Dir != folder.Dir() {
		t.Fatalf("ledger row %+v, %v", row, err)
	}
	kids, _ := eng.Ledger().Children(context.Background(), res.RunID)
	if len(kids) != 5 || kids[0].Label != "alpha" || kids[0].Phase != "Notes" || kids[0].PromptExcerpt != "note on alpha" ||
		kids[0].ResultExcerpt != "note on alpha" || kids[0].Status != ledger.ChildCompleted || kids[4].Phase != "Summary" {
		t.Fatalf("children %+v", kids)
	}
}

func readEventLog(t *testing.T, folder *journal.Folder) []engine.Event {
	t.Helper()
	data, err := folder.ReadFile(journal.EventsFile)
	if err != nil {
		t.Fatal(err)
	}
	var evs []engine.Event
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var ev engine.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("events.jsonl: %v: %s", err, sc.Bytes())
		}
		evs = append(evs, ev)
	}
	if err := eventcheck.Check(evs, eventcheck.Options{RunEvents: true}); err != nil {
		t.Fatalf("events.jsonl: %v", err)
	}
	return evs
}

func TestDurable_AResumedRunReplaysTheFinishedAgentsAndRunsTheRest(t *testing.T) {
	runs := t.TempDir()
	slow := newCountingFake(t, slowRules)
	eng := durableEngine(t, runs, slow)
	stopped := startAndCancelAfter(t, eng, engine.WorkflowStartRequest{Script: staged, Args: stagedArgs, Parent: "test"}, 2)
	if stopped.StopReason != engine.StopCancelled || stopped.Agents.Completed != 2 {
		t.Fatalf("stopped run %+v", stopped)
	}

	quick := newCountingFake(t, `{"rules":[]}`)
	eng2 := durableEngine(t, runs, quick)
	// No script: the old run's request is taken, as wfrun resume does.
	res, rec := start(t, eng2, engine.WorkflowStartRequest{ResumeFromRunId: stopped.RunID, Parent: "test"})
	if res.StopReason != engine.StopCompleted {
		t.Fatalf("resumed: %+v", res)
	}
	if res.Agents.Replayed != 2 || res.Agents.Completed != 3 || res.AgentsSpawned != 5 {
		t.Fatalf("resumed counts %+v, spawned %d", res.Agents, res.AgentsSpawned)
	}
	if quick.count("note on alpha")+quick.count("note on beta") != 0 || quick.count("note on gamma") != 1 || quick.count("note on delta") != 1 || quick.count("summarize") != 1 {
		t.Fatalf("the resumed run asked the provider %v", quick.calls)
	}
	replayed := 0
	for _, ev := range rec.Of(engine.EventAgentStart) {
		if ev.Replayed {
			replayed++
		}
	}
	if replayed != 2 {
		t.Fatalf("%d agent.start events are replayed", replayed)
	}

	// The value equals an uninterrupted run's.
	fresh, _ := start(t, newEngine(t, engine.Config{}), engine.WorkflowStartRequest{Script: staged, Args: stagedArgs})
	if string(res.Value) != string(fresh.Value) {
		t.Fatalf("resumed value %s, uninterrupted %s", res.Value, fresh.Value)
	}
	row, _ := eng2.Ledger().Get(context.Background(), res.RunID)
	if row.ParentRun != stopped.RunID || row.Agents.Replayed != 2 {
		t.Fatalf("lineage %+v", row)
	}
	kids, _ := eng2.Ledger().Children(context.Background(), res.RunID)
	if !kids[0].Replayed || kids[0].Usage.Tokens() != 0 || kids[2].Replayed {
		t.Fatalf("children %+v", kids)
	}
}

func TestDurable_ResumeIsRefusedForALiveRunAndForAnUnknownOne(t *testing.T) {
	runs := t.TempDir()
	eng := durableEngine(t, runs, newCountingFake(t, `{"rules":[{"match":"wait","delayMs":30000}]}`))
	run, err := eng.Start(context.Background(), engine.WorkflowStartRequest{Parent: "t",
		Script: `export const meta = {name: 'w', description: 'waits'}
await agent('wait')`})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Cancel("done")
	other := durableEngine(t, runs, newCountingFake(t, `{"rules":[]}`))
	for _, c := range []struct {
		eng  *engine.Engine
		id   string
		want string
	}{
		{eng, run.ID(), "still running in this process"},
		{other, run.ID(), "still running (process"},
		{other, "wf_0123456789abcdef", "has no folder"},
		{other, "../../etc", "is not a run id"},
	} {
		_, err := c.eng.Start(context.Background(), engine.WorkflowStartRequest{Parent: "t", ResumeFromRunId: c.id})
		if engine.CodeOf(err) != engine.CodeInvalidRequest || !strings.Contains(err.Error(), c.want) {
			t.Errorf("resume %s: %v, want %q", c.id, err, c.want)
		}
	}
}

func TestDurable_StopFromAnotherEngineCancelsTheRunAtItsNextHeartbeat(t *testing.T) {
	runs := t.TempDir()
	eng := durableEngine(t, runs, newCountingFake(t, slowRules))
	run, err := eng.Start(context.Background(), engine.WorkflowStartRequest{Script: staged, Args: stagedArgs, Parent: "t"})
	if err != nil {
		t.Fatal(err)
	}
	other := durableEngine(t, runs, newCountingFake(t, `{"rules":[]}`))
	tr, err := other.Stop(run.ID(), "enough for today")
	if err != nil || tr.To != ledger.RunCancelled {
		t.Fatalf("stop: %+v, %v", tr, err)
	}
	select {
	case <-run.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the stop was not carried out")
	}
	res := run.Wait()
	if res.StopReason != engine.StopCancelled || !strings.Contains(res.Error, "enough for today") {
		t.Fatalf("%+v", res)
	}
	row, _ := other.Ledger().Get(context.Background(), run.ID())
	tl, _ := other.Ledger().Timeline(context.Background(), run.ID())
	if row.Status != ledger.RunCancelled || len(tl) != 3 || tl[1].Kind != ledger.KindStop {
		t.Fatalf("row %+v, timeline %+v", row, tl)
	}
	if _, err := other.Stop(run.ID(), ""); engine.CodeOf(err) != engine.CodeInvalidRequest || !strings.Contains(err.Error(), "nothing to stop") {
		t.Fatalf("a second stop: %v", err)
	}
}

func TestDurable_RetryStartsANewRunLinkedToTheOldOne(t *testing.T) {
	runs := t.TempDir()
	eng := durableEngine(t, runs, newCountingFake(t, slowRules))
	stopped := startAndCancelAfter(t, eng, engine.WorkflowStartRequest{Script: staged, Args: stagedArgs, Parent: "t"}, 2)

	eng2 := durableEngine(t, runs, newCountingFake(t, `{"rules":[]}`))
	run, err := eng2.Retry(context.Background(), stopped.RunID, func(r *engine.WorkflowStartRequest) { r.BudgetTokens = 1_000_000 })
	if err != nil {
		t.Fatal(err)
	}
	res := run.Wait()
	if res.StopReason != engine.StopCompleted || res.Agents.Replayed != 2 || res.RunID == stopped.RunID {
		t.Fatalf("retry %+v", res)
	}
	row, _ := eng2.Ledger().Get(context.Background(), res.RunID)
	tl, _ := eng2.Ledger().Timeline(context.Background(), stopped.RunID)
	if row.ParentRun != stopped.RunID || tl[len(tl)-1].Kind != ledger.KindRetry || !strings.Contains(tl[len(tl)-1].Detail, res.RunID) {
		t.Fatalf("row %+v, old timeline %+v", row, tl)
	}
	if _, err := eng2.Retry(context.Background(), res.RunID, nil); engine.CodeOf(err) != engine.CodeInvalidRequest || !strings.Contains(err.Error(), "nothing to retry") {
		t.Fatalf("retrying a completed run: %v", err)
	}
	if _, err := eng2.Continue(context.Background(), stopped.RunID, nil); engine.CodeOf(err) != engine.CodeInvalidRequest || !strings.Contains(err.Error(), "retry it instead") {
		t.Fatalf("continuing a cancelled run: %v", err)
	}
	if err := eng2.Note(stopped.RunID, "superseded by the retry"); err != nil {
		t.Fatal(err)
	}
	if err := eng2.Note("wf_0123456789abcdef", "x"); engine.CodeOf(err) != engine.CodeInvalidRequest {
		t.Fatalf("a note on an unknown run: %v", err)
	}
}

func TestDurable_InfoAndRunsReadTheLedgerAfterARestart(t *testing.T) {
	runs := t.TempDir()
	first, err := engine.New(engine.Config{RunsDir: runs})
	if err != nil {
		t.Fatal(err)
	}
	res := first.Run(context.Background(), engine.WorkflowStartRequest{Script: trivial, Parent: "mcp"})
	if err := first.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	eng := newEngine(t, engine.Config{RunsDir: runs})
	in, ok := eng.Info("mcp", res.RunID)
	if !ok || in.Status != engine.RunCompleted || in.Meta.Name != "trivial" || in.Agents.Done != 1 || in.EndedAt == nil {
		t.Fatalf("info after a restart: %+v, %v", in, ok)
	}
	if _, ok := eng.Info("someone-else", res.RunID); ok {
		t.Fatal("another owner sees the run")
	}
	list := eng.Runs("mcp")
	if len(list) != 1 || list[0].RunID != res.RunID {
		t.Fatalf("runs %+v", list)
	}
	if len(eng.Runs("someone-else")) != 0 {
		t.Fatal("another owner lists the run")
	}
}

// A run that ends with an error has one status word wherever it is read:
// the registry's while the process lives, the ledger's after a restart,
// and the ledger's own row all say "failed" (docs/tool.md, workflow_status).
func TestDurable_AFailedRunIsFailedInTheRegistryAndTheLedgerAlike(t *testing.T) {
	runs := t.TempDir()
	first, err := engine.New(engine.Config{RunsDir: runs})
	if err != nil {
		t.Fatal(err)
	}
	boom := "export const meta = { name: 'boom', description: 'throws' }\nthrow new Error('broke')"
	res := first.Run(context.Background(), engine.WorkflowStartRequest{Script: boom, Parent: "mcp"})
	if res.StopReason != engine.StopError {
		t.Fatalf("result %+v", res)
	}
	live, ok := first.Info("mcp", res.RunID)
	if !ok || live.Status != engine.RunFailed || string(live.Status) != "failed" {
		t.Fatalf("the live registry says %q (%v)", live.Status, ok)
	}
	row, err := first.Ledger().Get(context.Background(), res.RunID)
	if err != nil || string(row.Status) != string(live.Status) {
		t.Fatalf("the ledger row says %q, the registry %q (%v)", row.Status, live.Status, err)
	}
	if err := first.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	eng := newEngine(t, engine.Config{RunsDir: runs})
	kept, ok := eng.Info("mcp", res.RunID)
	if !ok || kept.Status != live.Status || kept.ErrorCode != res.ErrorCode {
		t.Fatalf("after a restart: %+v, %v", kept, ok)
	}
}

// bigSteps calls eight agents with 100 KB prompts, one after another: each
// takes some 400 KB of its run's folder (the prompt and the answer, in the
// events and in the journal).
const bigSteps = `export const meta = { name: 'big', description: 'agents with long prompts' }
const out = []
for (let i = 0; i < 8; i++) out.push((await agent('step ' + i + ' ' + 'x'.repeat(100000))).length)
return out`

// wholeLines checks that every line of a run folder's file is JSON, and
// returns the file's size and lines.
func wholeLines(t *testing.T, folder *journal.Folder, name string) (int64, []json.RawMessage) {
	t.Helper()
	data, err := folder.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var lines []json.RawMessage
	for line := range bytes.Lines(data) {
		if !json.Valid(line) || !bytes.HasSuffix(line, []byte("\n")) {
			t.Fatalf("%s has a line that is not whole JSON: %.200q", name, line)
		}
		lines = append(lines, line)
	}
	return int64(len(data)), lines
}

func TestDurable_ARunPastItsFolderBudgetEndsWithResourceLimitAndResumesWithALargerOne(t *testing.T) {
	const budget = 1 << 20
	for _, tc := range []struct {
		name    string
		cfg     int64 // Config.MaxRunFolder
		req     int64 // the request's maxRunFolderBytes
		resume  int64 // the resume's maxRunFolderBytes
		isolate engine.Isolation
	}{
		{"the engine's budget", budget, 0, 0, ""},
		{"the request's budget", 0, budget, 16 << 20, ""},
		{"an isolated run", 0, budget, 16 << 20, engine.IsolateProcess},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runs := t.TempDir()
			p := newCountingFake(t, `{"rules":[]}`)
			eng := enginetest.New(t, engine.Config{RunsDir: runs, Providers: []agentapi.Provider{p}, MaxRunFolder: tc.cfg})
			res := eng.Run(context.Background(), engine.WorkflowStartRequest{Script: bigSteps, Parent: "test", MaxRunFolderBytes: tc.req, Isolate: tc.isolate})
			if res.StopReason != engine.StopError || res.ErrorCode != engine.CodeResourceLimit ||
				!strings.Contains(res.Error, "size budget of 1 MiB") || !strings.Contains(res.Error, "--max-run-folder") {
				t.Fatalf("result %+v", res)
			}
			t.Logf("%s", res.Error)
			folder, err := journal.OpenFolder(runs, res.RunID)
			if err != nil {
				t.Fatal(err)
			}
			evSize, evs := wholeLines(t, folder, journal.EventsFile)
			jSize, _ := wholeLines(t, folder, journal.JournalFile)
			last := evs[len(evs)-1]
			if evSize+jSize-int64(len(last)) > budget || !bytes.Contains(last, []byte(`"type":"run.end"`)) {
				t.Fatalf("the folder holds %d + %d bytes against a budget of %d; the last event is %.200s", evSize, jSize, budget, last)
			}
			key, err := journal.LoadKey(eng.StateDir(), res.RunID)
			if err != nil {
				t.Fatal(err)
			}
			kept, err := folder.ReadJournal(key, journal.Head{})
			if err != nil || len(kept) == 0 || len(kept) >= 8 {
				t.Fatalf("the journal keeps %d agents (%v)", len(kept), err)
			}
			if paid := p.count("step"); paid != len(kept)+1 && paid != len(kept) {
				t.Fatalf("%d agents ran for %d journaled", paid, len(kept))
			}

			// The run the budget stopped resumes with a larger one (the
			// engine's default, or the resume's own), replaying what it kept.
			paid := p.count("step")
			if tc.cfg != 0 {
				eng = enginetest.New(t, engine.Config{RunsDir: runs, Providers: []agentapi.Provider{p}})
			}
			again := eng.Run(context.Background(), engine.WorkflowStartRequest{ResumeFromRunId: res.RunID, Parent: "test", MaxRunFolderBytes: tc.resume})
			if again.StopReason != engine.StopCompleted || again.Agents.Replayed != len(kept) {
				t.Fatalf("the resume: %+v", again)
			}
			if ran := p.count("step") - paid; ran != 8-len(kept) {
				t.Fatalf("the resume ran %d agents, want %d", ran, 8-len(kept))
			}
		})
	}
}
