package ui_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/journal"
	"github.com/wfrun/wfrun/engine/ui"
)

func TestARunPageShowsMetaArgsPhasesTimelineAndAgents(t *testing.T) {
	r := newRig(t, ui.Config{}, readFile(t, "testdata/review.rules.json"))
	res := r.review()
	page := r.get("/runs/" + res.RunID)
	if page.code != http.StatusOK {
		t.Fatalf("GET the run = %d\n%s", page.code, page.body)
	}
	doc := page.doc(t)
	body := text(doc)
	for _, s := range []string{"release-review", "Reviewers read a change in parallel", "Before shipping a change",
		`"areas": [`, "one reviewer per area, three at a time", `"report": "Hold the release`} {
		if !strings.Contains(body, s) {
			t.Errorf("the page lacks %q", s)
		}
	}

	// Phases in meta's order, with their agents and token totals.
	var phases []string
	tokens := map[string]string{}
	for _, tr := range find(doc, func(n *html.Node) bool { return n.Data == "tr" && attr(n, "data-phase") != "" }) {
		phases = append(phases, attr(tr, "data-phase"))
		tokens[attr(tr, "data-phase")] = text(find(tr, byClass("td", "phase-tokens"))[0])
	}
	if !slices.Equal(phases, []string{"Review", "Verify", "Report"}) {
		t.Errorf("phases %v", phases)
	}
	// Report: one agent with the rule's usage, 1200 + 300.
	if tokens["Report"] != "1.5k" {
		t.Errorf("the Report phase's tokens are %q, want 1.5k", tokens["Report"])
	}

	// The timeline: a bar per agent, on no more rows than the run's three
	// slots, coloured by outcome.
	lanes := find(doc, func(n *html.Node) bool { return hasClass(n, "lane") && !hasClass(n, "axis") })
	if len(lanes) == 0 || len(lanes) > 3 {
		t.Errorf("%d timeline rows for a run with 3 slots", len(lanes))
	}
	status := map[string]string{}
	for _, b := range find(doc, byClass("svg", "bar")) {
		status[attr(b, "data-seq")] = attr(b, "data-status")
	}
	if len(status) != res.AgentsSpawned {
		t.Errorf("%d bars for %d agents", len(status), res.AgentsSpawned)
	}
	if status["3"] != "failed" || status["5"] != "timed_out" || status["2"] != "completed" {
		t.Errorf("the bars' outcomes: %v", status)
	}

	// Each agent: its whole prompt, its object result pretty-printed, its
	// error and failure kind, persona and usage.
	storage := find(doc, byID("agent-2"))[0]
	st := text(storage)
	for _, s := range []string{"Review the storage of: Move sessions", `"risk": "high"`, "reviewer", "900 in, 240 out"} {
		if !strings.Contains(st, s) {
			t.Errorf("agent #2 lacks %q:\n%s", s, st)
		}
	}
	security := text(find(doc, byID("agent-3"))[0])
	if !strings.Contains(security, "task_failed") || !strings.Contains(security, "the reviewer could not reach the threat model") {
		t.Errorf("the failed agent does not show its failure kind and error:\n%s", security)
	}
	// The ledger's timeline.
	if h := text(find(doc, byID("history"))[0]); !strings.Contains(h, "started") || !strings.Contains(h, "finished") {
		t.Errorf("the ledger timeline: %s", h)
	}
	// The verbs a completed run allows: only the note.
	for _, b := range find(doc, func(n *html.Node) bool { return n.Data == "button" && attr(n, "data-verb") != "" }) {
		_, disabled := attrOK(b, "disabled")
		if want := attr(b, "data-verb") != "follow_up"; disabled != want {
			t.Errorf("the %s button is disabled=%v on a completed run", attr(b, "data-verb"), disabled)
		}
		if disabled && attr(b, "title") == "" {
			t.Errorf("the disabled %s button does not say why", attr(b, "data-verb"))
		}
	}
}

func attrOK(n *html.Node, name string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == name {
			return a.Val, true
		}
	}
	return "", false
}

func TestEverythingAScriptOrAModelWroteIsEscaped(t *testing.T) {
	rules := `{"rules": [{"match": "^Hostile", "reply": "<img src=x onerror=alert(2)> & </pre><script>alert(3)</script>"}]}`
	r := newRig(t, ui.Config{}, rules)
	script := `export const meta = { name: 'hostile', description: '<script>alert(4)</script>' }
phase('<b onmouseover=alert(5)>p</b>')
return await agent('Hostile prompt <script>alert(6)</script>', { label: '</title></svg><script>alert(7)</script>' })`
	res := r.run(r.eng, script, `{"x": "</pre><script>alert(1)</script>"}`, 0)
	page := r.get("/runs/" + res.RunID)
	if page.code != http.StatusOK {
		t.Fatalf("GET = %d\n%s", page.code, page.body)
	}
	doc := page.doc(t)
	// The only script element is the page's own.
	for _, s := range find(doc, func(n *html.Node) bool { return n.Data == "script" }) {
		if attr(s, "src") != "/static/app.js" {
			t.Errorf("a script element came from the run: %s", text(s))
		}
	}
	for _, n := range find(doc, func(*html.Node) bool { return true }) {
		for _, a := range n.Attr {
			if strings.HasPrefix(a.Key, "on") {
				t.Errorf("an event handler attribute %s=%q came from the run", a.Key, a.Val)
			}
		}
		if n.Data == "img" || n.Data == "b" {
			t.Errorf("a <%s> element came from the run", n.Data)
		}
	}
	// The text is all there, as text.
	body := text(doc)
	for _, s := range []string{"<script>alert(4)</script>", "Hostile prompt <script>alert(6)</script>",
		"<img src=x onerror=alert(2)>", "</title></svg><script>alert(7)</script>", "<b onmouseover=alert(5)>p</b>", `"x": "</pre><script>alert(1)</script>"`} {
		if !strings.Contains(body, s) {
			t.Errorf("the page does not show %q as text", s)
		}
	}
}

func TestReplayedChildrenAreMarked(t *testing.T) {
	r := newRig(t, ui.Config{}, `{"rules": [{"match": "^Second", "delayMs": 30000}]}`)
	script := `export const meta = { name: 'two-steps', description: 'two agents, one after the other' }
const a = await agent('First step.', { label: 'first' })
return await agent('Second step after ' + a, { label: 'second' })`
	run, err := r.eng.Start(context.Background(), engine.WorkflowStartRequest{Script: script, Parent: "test"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first agent to be journaled", func() bool {
		entries, _ := r.eng.RunJournal(run.ID())
		return len(entries) == 1
	})
	run.Cancel("the test stops it")
	run.Wait()
	quick := r.engine("")
	resumed, err := quick.Start(context.Background(), engine.WorkflowStartRequest{ResumeFromRunId: run.ID(), Parent: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if res := resumed.Wait(); res.Agents.Replayed != 1 || res.StopReason != engine.StopCompleted {
		t.Fatalf("the resumed run: %+v", res)
	}
	doc := r.get("/runs/" + resumed.ID()).doc(t)
	chips := find(doc, byClass("a", "replayed"))
	if len(chips) != 1 || attr(chips[0], "data-seq") != "1" {
		t.Fatalf("the replayed agents of the timeline: %d chips", len(chips))
	}
	if bars := find(doc, byClass("svg", "bar")); len(bars) != 1 || attr(bars[0], "data-seq") != "2" {
		t.Errorf("a replayed agent holds no slot, so only #2 has a bar; got %d bars", len(bars))
	}
	first := text(find(doc, byID("agent-1"))[0])
	if !strings.Contains(first, "replayed") || !strings.Contains(first, "costs this run nothing") {
		t.Errorf("agent #1 is not marked replayed:\n%s", first)
	}
	// The lineage links the two runs both ways.
	if !strings.Contains(text(doc), "Resumes "+run.ID()) {
		t.Errorf("the resumed run does not name the run it resumes")
	}
	old := r.get("/runs/" + run.ID())
	if !strings.Contains(old.body, `href="/runs/`+resumed.ID()+`"`) {
		t.Errorf("the old run does not link to its resumption")
	}
}

func TestTheTranscriptIsShownWhenTheRunFolderHasOne(t *testing.T) {
	r := newRig(t, ui.Config{}, "")
	res := r.run(r.eng, `export const meta = { name: 'one', description: 'one agent' }
return await agent('Tell me.', { label: 'teller' })`, "", 0)
	page := r.get("/runs/" + res.RunID)
	if strings.Contains(page.body, "/transcript") {
		t.Fatal("a transcript link without a transcript")
	}
	agentID := ""
	for _, d := range find(page.doc(t), byID("agent-1")) {
		agentID = strings.TrimSpace(text(find(d, func(n *html.Node) bool { return n.Data == "code" })[0]))
	}
	dir := filepath.Join(r.runs, res.RunID, journal.TranscriptsDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	lines := `{"type":"start","model":"m1","tools":["Read"]}
{"type":"message","message":{"role":"user","content":"Tell me <script>alert(1)</script>"}}
{"type":"message","message":{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"Read","arguments":"{\"path\":\"a\"}"}}]}}
{"type":"tool_result","toolCallId":"c1","name":"Read","content":"file text"}
not json at all
{"type":"end","status":"completed","usage":{"inputTokens":5,"outputTokens":2,"costUSD":0}}
`
	if err := os.WriteFile(filepath.Join(dir, agentID+".jsonl"), []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	page = r.get("/runs/" + res.RunID)
	link := "/runs/" + res.RunID + "/agents/1/transcript"
	if !strings.Contains(page.body, link) {
		t.Fatalf("no transcript link for agent %s", agentID)
	}
	tr := r.get(link)
	if tr.code != http.StatusOK {
		t.Fatalf("GET the transcript = %d\n%s", tr.code, tr.body)
	}
	body := text(tr.doc(t))
	for _, s := range []string{"Tell me <script>alert(1)</script>", `{"path":"a"}`, "file text", "not json at all", "completed"} {
		if !strings.Contains(body, s) {
			t.Errorf("the transcript lacks %q", s)
		}
	}
	if strings.Contains(tr.body, "<script>alert") {
		t.Error("the transcript's text became markup")
	}
}

func TestUnknownRunsAndPagesAre404(t *testing.T) {
	r := newRig(t, ui.Config{}, "")
	res := r.run(r.eng, `export const meta = { name: 'one', description: 'one agent' }
return await agent('Tell me.')`, "", 0)
	for _, c := range []struct{ path, says string }{
		{"/runs/wf_0000000000000000", "holds no run wf_0000000000000000"},
		{"/runs/not-an-id", "is not a run id"},
		{"/runs/..%2f..%2fetc", "is not a run id"},
		{"/runs/wf_0000000000000000/body", "holds no run"},
		{"/runs/wf_0000000000000000/events", "holds no run"},
		{"/runs/" + res.RunID + "/agents/9/transcript", "has no agent #9"},
		{"/runs/" + res.RunID + "/agents/1/transcript", "has no transcript"},
		{"/nothing/here", "no page at"},
		{"/static/missing.js", ""},
	} {
		t.Run(c.path, func(t *testing.T) {
			a := r.get(c.path)
			if a.code != http.StatusNotFound {
				t.Fatalf("GET %s = %d, want 404", c.path, a.code)
			}
			if c.says != "" && !strings.Contains(a.body, c.says) {
				t.Errorf("GET %s does not say %q:\n%s", c.path, c.says, a.body)
			}
		})
	}
}

func TestARunWhoseFolderIsGoneShowsItsLedgerRow(t *testing.T) {
	r := newRig(t, ui.Config{}, "")
	res := r.run(r.eng, `export const meta = { name: 'gone', description: 'its folder is removed' }
return await agent('Tell me.', { label: 'teller' })`, "", 0)
	if err := os.RemoveAll(filepath.Join(r.runs, res.RunID)); err != nil {
		t.Fatal(err)
	}
	a := r.get("/runs/" + res.RunID)
	if a.code != http.StatusOK || !strings.Contains(a.body, "has no folder") || !strings.Contains(a.body, "teller") {
		t.Fatalf("GET = %d\n%s", a.code, a.body)
	}
}

// A child that changes the run folder's request or journal does not change
// what the page vouches for: it says the files fail their check.
func TestARunPageSaysWhenTheFolderWasChangedBehindWfrunsBack(t *testing.T) {
	r := newRig(t, ui.Config{}, readFile(t, "testdata/review.rules.json"))
	res := r.review()
	dir := filepath.Join(r.runs, res.RunID)
	data, err := os.ReadFile(filepath.Join(dir, journal.RequestFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, journal.RequestFile), []byte(strings.Replace(string(data), "release-review", "forged-review", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, journal.JournalFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"v":1,"seq":99,"order":99,"key":"k","agentId":"a","status":"completed","text":"FORGED"}` + "\n")
	f.Close()
	page := r.get("/runs/" + res.RunID)
	if page.code != http.StatusOK {
		t.Fatalf("GET the run = %d\n%s", page.code, page.body)
	}
	body := text(page.doc(t))
	for _, s := range []string{"changed after wfrun wrote it", "has no MAC"} {
		if !strings.Contains(body, s) {
			t.Errorf("the page does not say %q", s)
		}
	}
	if strings.Contains(body, "FORGED") {
		t.Error("the page shows the forged answer")
	}
}
