package eventcheck

import (
	"strings"
	"testing"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/runtime"
)

// Shorthands for building streams: s(n) starts agent n, e(n) ends it.
func s(n int) runtime.Event {
	return runtime.Event{Type: runtime.EventAgentStart, RunID: "wf_x", AgentID: id(n), Seq: n}
}

func e(n int) runtime.Event {
	return runtime.Event{Type: runtime.EventAgentEnd, RunID: "wf_x", AgentID: id(n), Seq: n, Outcome: agentapi.StatusCompleted}
}

func id(n int) string { return "ag_" + string(rune('0'+n)) }

func runStart(conc int) runtime.Event {
	return runtime.Event{Type: runtime.EventRunStart, RunID: "wf_x", Concurrency: conc}
}

var runEnd = runtime.Event{Type: runtime.EventRunEnd, RunID: "wf_x"}

// rs(n) and re(n) start and end agent n as replayed from a journal.
func rs(n int) runtime.Event { ev := s(n); ev.Replayed = true; return ev }
func re(n int) runtime.Event { ev := e(n); ev.Replayed = true; return ev }

func stream(evs ...runtime.Event) []runtime.Event { return evs }

func TestCheck(t *testing.T) {
	failed := e(1)
	failed.Outcome, failed.Error = agentapi.StatusFailed, ""
	other := s(2)
	other.RunID = "wf_other"
	bogus := e(1)
	bogus.Outcome = "exploded"

	cases := []struct {
		name   string
		events []runtime.Event
		opts   Options
		want   string // "" = valid; else a part of the error
	}{
		{"an empty runtime stream is valid", nil, Options{}, ""},
		{"an empty engine stream is not", nil, Options{RunEvents: true}, "no events"},
		{"a sequential run", stream(s(1), e(1), s(2), e(2)), Options{}, ""},
		{"an engine stream framed by run events", stream(runStart(2), s(1), s(2), e(2), e(1), runEnd), Options{RunEvents: true}, ""},
		{"run.start in a runtime stream", stream(runStart(2)), Options{}, "run.start at position 0"},
		{"run.start not first", stream(s(1), e(1), runStart(2), runEnd), Options{RunEvents: true}, "run.start at position 2"},
		{"run.end not last", stream(runStart(2), runEnd, s(1), e(1)), Options{RunEvents: true}, "run.end at position 1"},
		{"no run.end", stream(runStart(2), s(1), e(1)), Options{RunEvents: true}, "want run.end"},
		{"a start without an end", stream(s(1), s(2), e(2)), Options{}, "ag_1 started but never ended"},
		{"an end without a start", stream(e(1)), Options{}, "ended without a start"},
		{"two ends", stream(s(1), e(1), e(1)), Options{}, "ended twice"},
		{"two starts", stream(s(1), s(1)), Options{}, "started twice"},
		{"a failure without an error", stream(s(1), failed), Options{}, "without an error"},
		{"an unknown outcome", stream(s(1), bogus), Options{}, `outcome "exploded"`},
		{"another run's event", stream(s(1), other), Options{}, "has runId"},
		{"starts out of first-come order", stream(s(2), s(1), e(1), e(2)), Options{}, "not first come, first served"},
		{"more running than the option's slots", stream(s(1), s(2), s(3), e(1), e(2), e(3)), Options{Concurrency: 2}, "the run has 2 slots"},
		{"exactly as many running as slots", stream(s(1), s(2), e(1), s(3), e(2), e(3)), Options{Concurrency: 2}, ""},
		{"the next start before the end whose slot it takes", stream(s(1), s(2), s(3), e(1), e(2), e(3)),
			Options{RunEvents: false, Concurrency: 2}, "started while 2 others were running"},
		{"slots from run.start", stream(runStart(1), s(1), s(2), e(1), e(2), runEnd), Options{RunEvents: true}, "the run has 1 slots"},
		{"replayed children, then live ones", stream(rs(1), re(1), rs(2), re(2), s(3), s(4), e(3), e(4)), Options{Concurrency: 2}, ""},
		{"a replayed child after a live one", stream(s(1), rs(2), re(2), e(1)), Options{}, "replay is a prefix"},
		{"a replayed child left open", stream(rs(1), s(2), e(2), re(1)), Options{}, "not ended right after its start"},
		{"a replayed start with a live end", stream(rs(1), e(1)), Options{}, "ends completed and replayed"},
		{"a live start with a replayed end", stream(s(1), re(1)), Options{}, "did not start replayed"},
		{"a replayed child that failed", stream(rs(1), func() runtime.Event { ev := re(1); ev.Outcome, ev.Error = agentapi.StatusFailed, "x"; return ev }()), Options{}, "ends completed"},
		{"the option wins over run.start", stream(runStart(1), s(1), s(2), e(1), e(2), runEnd), Options{RunEvents: true, Concurrency: 2}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Check(c.events, c.opts)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("valid stream refused: %v", err)
			case c.want != "" && err == nil:
				t.Fatalf("invalid stream accepted, want an error containing %q", c.want)
			case c.want != "" && !strings.Contains(err.Error(), c.want):
				t.Fatalf("error %q does not contain %q", err, c.want)
			}
		})
	}
}

func TestCheck_DefaultSlotsAreTheRuntimeDefault(t *testing.T) {
	var evs []runtime.Event
	for n := 1; n <= runtime.DefaultConcurrency+1; n++ {
		evs = append(evs, runtime.Event{Type: runtime.EventAgentStart, RunID: "wf_x", AgentID: "ag_" + strings.Repeat("x", n), Seq: n})
	}
	if err := Check(evs, Options{}); err == nil || !strings.Contains(err.Error(), "slots") {
		t.Fatalf("%d running children accepted without a limit: %v", len(evs), err)
	}
}

func TestRecorder_OfFiltersByType(t *testing.T) {
	var r Recorder
	for _, ev := range stream(s(1), e(1), s(2)) {
		r.Record(ev)
	}
	if n := len(r.Of(runtime.EventAgentStart)); n != 2 {
		t.Fatalf("%d agent.start, want 2", n)
	}
	if n := len(r.Events()); n != 3 {
		t.Fatalf("%d events, want 3", n)
	}
}
