package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine"
)

// at builds the events of an attempt at offsets from a fixed start.
type at struct{ t0 time.Time }

func (a at) ev(ms int, typ engine.EventType, seq int, extra func(*engine.Event)) engine.Event {
	ev := engine.Event{Type: typ, Time: a.t0.Add(time.Duration(ms) * time.Millisecond), Seq: seq}
	if seq > 0 {
		ev.AgentID = "ag_" + string(rune('a'+seq))
	}
	if extra != nil {
		extra(&ev)
	}
	return ev
}

func outcome(s agentapi.Status) func(*engine.Event) { return func(e *engine.Event) { e.Outcome = s } }

func TestEachAgentTakesTheLowestSlotFreeWhenItStarts(t *testing.T) {
	a := at{time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	events := []engine.Event{
		a.ev(0, engine.EventRunStart, 0, func(e *engine.Event) { e.Concurrency = 2 }),
		a.ev(0, engine.EventAgentStart, 1, func(e *engine.Event) { e.Replayed = true }),
		a.ev(0, engine.EventAgentEnd, 1, func(e *engine.Event) { e.Replayed, e.Outcome = true, agentapi.StatusCompleted }),
		a.ev(0, engine.EventAgentStart, 2, nil),
		a.ev(100, engine.EventAgentStart, 3, nil),
		a.ev(400, engine.EventAgentEnd, 2, outcome(agentapi.StatusFailed)),
		a.ev(400, engine.EventAgentStart, 4, nil), // takes slot 1, which #2 freed
		a.ev(500, engine.EventAgentEnd, 3, outcome(agentapi.StatusCompleted)),
		a.ev(600, engine.EventAgentStart, 5, nil), // slot 2; still running at the end
		a.ev(800, engine.EventAgentEnd, 4, outcome(agentapi.StatusTimedOut)),
	}
	tl := layout(events, a.t0.Add(time.Second), func(seq int) string { return "" })
	if tl.Concurrency != 2 || len(tl.Rows) != 2 {
		t.Fatalf("%d rows for concurrency %d", len(tl.Rows), tl.Concurrency)
	}
	type got struct {
		seq         int
		status      string
		left, width float64
	}
	want := [][]got{
		{{2, "failed", 0, 40}, {4, "timed_out", 40, 40}},
		{{3, "completed", 10, 40}, {5, "running", 60, 40}},
	}
	for i, row := range want {
		for j, w := range row {
			b := tl.Rows[i][j]
			if b.Seq != w.seq || b.Status != w.status || !near(b.Left, w.left) || !near(b.Width, w.width) {
				t.Errorf("row %d bar %d = #%d %s at %.1f%% for %.1f%%, want %+v", i+1, j+1, b.Seq, b.Status, b.Left, b.Width, w)
			}
		}
	}
	if len(tl.Replayed) != 1 || tl.Replayed[0].Seq != 1 {
		t.Errorf("replayed: %+v", tl.Replayed)
	}
	if tl.Span != time.Second || tl.Ticks[4].Label != "1s" {
		t.Errorf("span %v, ticks %+v", tl.Span, tl.Ticks)
	}
}

func TestABarWhoseEndWasNeverWrittenTakesItsStatusFromTheLedger(t *testing.T) {
	a := at{time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	events := []engine.Event{
		a.ev(0, engine.EventRunStart, 0, func(e *engine.Event) { e.Concurrency = 4 }),
		a.ev(0, engine.EventAgentStart, 1, nil),
		a.ev(1, engine.EventAgentStart, 2, nil),
		a.ev(200, engine.EventAgentEnd, 1, outcome(agentapi.StatusCompleted)),
	}
	tl := layout(events, a.t0.Add(300*time.Millisecond), func(seq int) string { return "abandoned" })
	if b := tl.Rows[1][0]; b.Status != "abandoned" || !b.Open || b.Left+b.Width > 100.0001 {
		t.Errorf("the unfinished bar: %+v", b)
	}
	// An agent that took no time is still visible.
	tl = layout(events[:2], a.t0, func(int) string { return "" })
	if b := tl.Rows[0][0]; b.Width < minBarPercent || b.Left+b.Width > 100.0001 {
		t.Errorf("an instant bar: %+v", b)
	}
}

func near(a, b float64) bool { return a-b < 0.01 && b-a < 0.01 }

func TestAxis_LabelsNeverRepeat(t *testing.T) {
	for _, tc := range []struct {
		span time.Duration
		want string
	}{
		{200 * time.Millisecond, "0s 50ms 100ms 150ms 200ms"},
		{time.Second, "0s 250ms 500ms 750ms 1s"},
		{2 * time.Millisecond, "0s 500µs 1ms 1.5ms 2ms"},
		{10 * time.Minute, "0s 2m30s 5m0s 7m30s 10m0s"},
		{197 * time.Second, "0s 49s 1m39s 2m28s 3m17s"},
		{1234567 * time.Microsecond, "0s 310ms 620ms 930ms 1.23s"},
		{0, "0s"},
	} {
		var labels []string
		for _, tk := range axis(tc.span) {
			labels = append(labels, tk.Label)
		}
		if got := strings.Join(labels, " "); got != tc.want {
			t.Errorf("axis(%v) = %q, want %q", tc.span, got, tc.want)
		}
	}
}
