package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/internal/wferr"
	. "github.com/wfrun/wfrun/runtime"
	"github.com/wfrun/wfrun/runtime/eventcheck"
)

// memJournal is a Journal in memory: what a fresh run wrote, handed to the
// next attempt as its Prior.
type memJournal struct {
	prior []JournalEntry

	mu      sync.Mutex
	entries []JournalEntry
	fail    error     // Record returns it
	onWrite func(int) // called with the seq of each entry written
}

func (j *memJournal) Prior() []JournalEntry { return j.prior }

func (j *memJournal) Record(e JournalEntry) error {
	if j.fail != nil {
		return j.fail
	}
	j.mu.Lock()
	j.entries = append(j.entries, e)
	j.mu.Unlock()
	if j.onWrite != nil {
		j.onWrite(e.Seq)
	}
	return nil
}

func (j *memJournal) written() []JournalEntry {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]JournalEntry(nil), j.entries...)
}

// next is the journal of the attempt that resumes this one.
func (j *memJournal) next() *memJournal { return &memJournal{prior: j.written()} }

func withJournal(j Journal) func(*Config) { return func(c *Config) { c.Journal = j } }

// counting wraps the fake provider and counts the children it runs, by prompt.
type counting struct {
	agentapi.Provider
	mu    sync.Mutex
	calls map[string]int
	total atomic.Int32
}

func newCounting(t *testing.T, rules string) *counting {
	t.Helper()
	var r *fake.Rules
	if rules != "" {
		var err error
		if r, err = fake.Parse([]byte(rules)); err != nil {
			t.Fatal(err)
		}
	}
	return &counting{Provider: fake.New(fake.Options{Rules: r}), calls: map[string]int{}}
}

func (p *counting) Run(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
	p.total.Add(1)
	p.mu.Lock()
	p.calls[req.Prompt]++
	p.mu.Unlock()
	return p.Provider.Run(ctx, req)
}

const fanOut = `
phase('Gather')
const notes = await parallel(['a', 'b', 'c'].map(x => () => agent('note on ' + x)))
const summary = await agent({prompt: 'sum ' + notes.join(','), schema: {type: 'object', properties: {n: {type: 'number'}}, required: ['n']}})
return {notes, summary: summary.result, status: summary.status, tokens: summary.usage.inputTokens}
`

func TestJournal_AFreshRunRecordsEveryChildWithItsKeyAndOutcome(t *testing.T) {
	j := &memJournal{}
	out, _ := runScript(t, fanOut, withJournal(j))
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	got := j.written()
	if len(got) != 4 {
		t.Fatalf("%d entries: %+v", len(got), got)
	}
	for i, e := range got {
		if e.Order != i+1 || e.Status != agentapi.StatusCompleted || e.Replayed || e.Key == "" || e.AgentID == "" {
			t.Errorf("entry %d = %+v", i, e)
		}
	}
	last := got[3]
	if last.Seq != 4 || string(last.Output) != `{"n":0}` || !strings.Contains(last.Key, `"schema":{"properties":{"n":{"type":"number"}},"required":["n"],"type":"object"}`) {
		t.Errorf("the schema call's entry = %+v", last)
	}
	if got[0].Phase != "Gather" || got[0].Text != "note on "+string(rune('a'+got[0].Seq-1)) {
		t.Errorf("first entry = %+v", got[0])
	}
}

func TestJournal_TheSameScriptReplaysEveryChildWithoutCallingTheProvider(t *testing.T) {
	p := newCounting(t, "")
	j := &memJournal{}
	first, _ := runScript(t, fanOut, withJournal(j), withProvider(p))
	if first.Err != nil || p.total.Load() != 4 {
		t.Fatalf("first run: %v, %d calls", first.Err, p.total.Load())
	}
	resumed := j.next()
	again, rec := runScript(t, fanOut, withJournal(resumed), withProvider(p))
	if again.Err != nil {
		t.Fatal(again.Err)
	}
	if n := p.total.Load(); n != 4 {
		t.Fatalf("the provider ran %d children in all, want the first run's 4", n)
	}
	if string(again.Value) != string(first.Value) {
		t.Fatalf("replayed value %s, first %s", again.Value, first.Value)
	}
	if again.Agents != (Counts{Replayed: 4}) || again.AgentsSpawned != 4 || again.Usage != (agentapi.Usage{}) {
		t.Fatalf("counts %+v, spawned %d, usage %+v", again.Agents, again.AgentsSpawned, again.Usage)
	}
	for _, ev := range rec.Events() {
		if (ev.Type == EventAgentStart || ev.Type == EventAgentEnd) && !ev.Replayed {
			t.Fatalf("event %+v is not marked replayed", ev)
		}
		if ev.Type == EventAgentEnd && (ev.Usage == nil || *ev.Usage != (agentapi.Usage{})) {
			t.Fatalf("a replayed agent.end costs %+v", ev.Usage)
		}
	}
	// The resumed attempt's journal is complete on its own: a third
	// attempt replays from it alone.
	if w := resumed.written(); len(w) != 4 || !w[0].Replayed {
		t.Fatalf("the resumed attempt journaled %+v", w)
	}
	third, _ := runScript(t, fanOut, withJournal(resumed.next()), withProvider(p))
	if third.Agents.Replayed != 4 || p.total.Load() != 4 {
		t.Fatalf("third attempt: %+v, %d calls", third.Agents, p.total.Load())
	}
}

func TestJournal_ReplayStopsAtTheFirstChangedFailedOrMissingCall(t *testing.T) {
	const seqScript = `
const out = []
for (const x of args.items) out.push(await agent('step ' + x))
return out`
	cases := []struct {
		name     string
		items    string // args of the resumed attempt
		rules    string // rules of the first attempt
		drop     int    // seq whose entry is removed (an unfinished child)
		replayed int
		live     []string // prompts the provider sees on resume
	}{
		{name: "unchanged", items: `[1,2,3,4]`, replayed: 4},
		{name: "a changed arg changes the prefix", items: `[1,2,9,4]`, replayed: 2, live: []string{"step 9", "step 4"}},
		{name: "an appended call runs live", items: `[1,2,3,4,5]`, replayed: 4, live: []string{"step 5"}},
		{name: "a failed child runs again, and so does everything after it", items: `[1,2,3,4]`,
			rules: `{"rules":[{"match":"step 2","fail":"flaky"}]}`, replayed: 1, live: []string{"step 2", "step 3", "step 4"}},
		{name: "an unfinished child runs again", items: `[1,2,3,4]`, drop: 3, replayed: 2, live: []string{"step 3", "step 4"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := &memJournal{}
			runScript(t, seqScript, withJournal(j), withProvider(newCounting(t, tc.rules)),
				func(c *Config) { c.Args = []byte(`{"items":[1,2,3,4]}`) })
			next := j.next()
			if tc.drop > 0 {
				var kept []JournalEntry
				for _, e := range next.prior {
					if e.Seq != tc.drop {
						kept = append(kept, e)
					}
				}
				next.prior = kept
			}
			p := newCounting(t, "")
			out, _ := runScript(t, seqScript, withJournal(next), withProvider(p),
				func(c *Config) { c.Args = []byte(`{"items":` + tc.items + `}`) })
			if out.Err != nil {
				t.Fatal(out.Err)
			}
			if out.Agents.Replayed != tc.replayed {
				t.Errorf("replayed %d, want %d", out.Agents.Replayed, tc.replayed)
			}
			if int(p.total.Load()) != len(tc.live) {
				t.Errorf("the provider ran %v, want %v", p.calls, tc.live)
			}
			for _, prompt := range tc.live {
				if p.calls[prompt] != 1 {
					t.Errorf("%q ran %d times on resume, want once (%v)", prompt, p.calls[prompt], p.calls)
				}
			}
			if sum := out.Agents.Completed + out.Agents.Failed + out.Agents.TimedOut + out.Agents.Cancelled + out.Agents.Replayed; sum != out.AgentsSpawned {
				t.Errorf("counts %+v add up to %d, spawned %d", out.Agents, sum, out.AgentsSpawned)
			}
		})
	}
}

// A pipeline's second stage is called when an item's first stage ends, so
// its seq numbers follow the order in which children finished. Replay
// hands outcomes back in that order, so the calls come back the same.
func TestJournal_APipelineWhoseCallsFollowCompletionOrderReplaysWhole(t *testing.T) {
	const src = `
return await pipeline(['slow', 'fast', 'mid'], x => agent('one ' + x), (prev, x) => agent('two ' + prev))`
	rules := `{"rules":[{"match":"^one slow","delayMs":60},{"match":"^one mid","delayMs":30}]}`
	j := &memJournal{}
	first, _ := runScript(t, src, withJournal(j), withRules(t, rules))
	if first.Err != nil {
		t.Fatal(first.Err)
	}
	// The first run's third call is the fast item's second stage.
	for _, e := range j.written() {
		if e.Seq == 4 && !strings.Contains(e.Key, "two one fast") {
			t.Fatalf("seq 4 is %s; the timing of the test did not hold", e.Key)
		}
	}
	p := newCounting(t, "")
	again, _ := runScript(t, src, withJournal(j.next()), withProvider(p))
	if again.Agents.Replayed != 6 || p.total.Load() != 0 {
		t.Fatalf("replayed %d, provider ran %v", again.Agents.Replayed, p.calls)
	}
	if string(again.Value) != string(first.Value) {
		t.Fatalf("value %s, first %s", again.Value, first.Value)
	}
}

// A script that changed so that it waits for an outcome the journal hands
// over only after one it no longer asks for first: the run does not stall,
// it hands the held outcome over and goes on live.
func TestJournal_AResumedScriptThatWaitsForAHeldOutcomeDoesNotStall(t *testing.T) {
	j := &memJournal{}
	runScript(t, `return await parallel([() => agent('a'), () => agent('b')])`, withJournal(j),
		withRules(t, `{"rules":[{"match":"^a$","delayMs":40}]}`))
	p := newCounting(t, "")
	out, _ := runScript(t, `const a = await agent('a'); const b = await agent('b'); return [a, b]`,
		withJournal(j.next()), withProvider(p))
	wantValue(t, out, `["a","b"]`)
	if out.Agents.Replayed != 1 || p.calls["b"] != 1 {
		t.Fatalf("replayed %d, provider ran %v", out.Agents.Replayed, p.calls)
	}
}

func TestJournal_TheEntryIsWrittenBeforeTheScriptSeesTheOutcome(t *testing.T) {
	var mu sync.Mutex
	var order []string
	note := func(s string) {
		mu.Lock()
		order = append(order, s)
		mu.Unlock()
	}
	j := &memJournal{onWrite: func(seq int) { note(fmt.Sprintf("journal %d", seq)) }}
	rec := &eventcheck.Recorder{}
	out, _ := run(t, harness{rec: rec}, `const x = await agent('one'); log('saw ' + x); await agent('two'); log('saw two')`,
		withJournal(j), func(c *Config) {
			c.Emit = func(ev Event) {
				rec.Record(ev)
				if ev.Type == EventLog {
					note(ev.Message)
				}
			}
		})
	if out.Err != nil {
		t.Fatal(out.Err)
	}
	if got := strings.Join(order, "; "); got != "journal 1; saw one; journal 2; saw two" {
		t.Fatalf("order: %s", got)
	}
}

func TestJournal_AFailedWriteEndsTheRunBeforeTheScriptSeesTheChild(t *testing.T) {
	j := &memJournal{fail: errors.New("no space left on device")}
	out, rec := runScript(t, `const x = await agent('one'); log('saw it'); return x`, withJournal(j))
	wantCode(t, out, wferr.ResourceLimit, "could not write agent 1 to its journal (no space left on device)")
	if logs := rec.Of(EventLog); len(logs) != 0 {
		t.Fatalf("the script went on after the failed write: %+v", logs)
	}
}

func TestJournal_TheBudgetCountsWhatReplayedChildrenCostTheFirstTime(t *testing.T) {
	const src = `
let rounds = 0
while (budget.remaining() > 0) { await agent('round ' + rounds); rounds++ }
return {rounds, spent: budget.spent()}`
	rules := `{"rules":[{"match":"round","usage":{"inputTokens":10,"outputTokens":0}}]}`
	budget := func(c *Config) { c.BudgetTokens = 30 }
	j := &memJournal{}
	first, _ := runScript(t, src, withJournal(j), withRules(t, rules), budget)
	wantValue(t, first, `{"rounds":3,"spent":30}`)
	p := newCounting(t, rules)
	again, _ := runScript(t, src, withJournal(j.next()), withProvider(p), budget)
	wantValue(t, again, `{"rounds":3,"spent":30}`)
	if p.total.Load() != 0 || again.Usage.Tokens() != 0 {
		t.Fatalf("the resumed run paid: %v calls, usage %+v", p.calls, again.Usage)
	}
}

func TestCallKey(t *testing.T) {
	base := agentapi.Request{Prompt: "p", Model: "m", Schema: []byte(`{"type":"object","properties":{"a":{"type":"string"}}}`)}
	with := func(f func(*agentapi.Request)) agentapi.Request {
		r := base
		f(&r)
		return r
	}
	same := []struct {
		name string
		req  agentapi.Request
	}{
		{"label, phase, seq, ids and timeout do not count", with(func(r *agentapi.Request) {
			r.Label, r.Phase, r.Seq, r.AgentID, r.RunID, r.Timeout = "l", "ph", 7, "ag_x", "wf_x", 5
		})},
		{"a schema with its keys in another order", with(func(r *agentapi.Request) {
			r.Schema = []byte(`{ "properties": {"a": {"type": "string"}}, "type": "object" }`)
		})},
	}
	for _, c := range same {
		if CallKey(c.req) != CallKey(base) {
			t.Errorf("%s: %s != %s", c.name, CallKey(c.req), CallKey(base))
		}
	}
	if CallKey(with(func(r *agentapi.Request) { r.Tools = []string{"Read", "Grep"} })) !=
		CallKey(with(func(r *agentapi.Request) { r.Tools = []string{"Grep", "Read"} })) {
		t.Error("tools in another order give another key")
	}
	differ := []struct {
		name string
		req  agentapi.Request
	}{
		{"prompt", with(func(r *agentapi.Request) { r.Prompt = "q" })},
		{"model", with(func(r *agentapi.Request) { r.Model = "n" })},
		{"schema", with(func(r *agentapi.Request) { r.Schema = nil })},
		{"persona", with(func(r *agentapi.Request) { r.Persona = "x" })},
		{"effort", with(func(r *agentapi.Request) { r.Effort = "high" })},
		{"isolation", with(func(r *agentapi.Request) { r.Isolation = "worktree" })},
		{"maxTurns", with(func(r *agentapi.Request) { r.MaxTurns = 3 })},
		{"an empty tools list is not the default set", with(func(r *agentapi.Request) { r.Tools = []string{} })},
	}
	for _, c := range differ {
		if CallKey(c.req) == CallKey(base) {
			t.Errorf("changing %s keeps the key %s", c.name, CallKey(base))
		}
	}
	if got := CallKey(agentapi.Request{Prompt: "hi"}); got != `{"prompt":"hi"}` {
		t.Errorf("minimal key = %s", got)
	}
}

func TestCallKey_BothCallFormsShareKeys(t *testing.T) {
	j := &memJournal{}
	runScript(t, `await agent('same', {model: 'm', tools: ['Read']}); await agent({prompt: 'same', model: 'm', tools: ['Read'], description: 'd'})`, withJournal(j))
	w := j.written()
	if len(w) != 2 || w[0].Key != w[1].Key {
		t.Fatalf("keys differ: %+v", w)
	}
}
