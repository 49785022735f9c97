package main

import (
	"strings"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/meta"
)

func TestProgressLineShowsPhaseAgentsTokensAndElapsedTime(t *testing.T) {
	var s progressState
	feed := []engine.Event{
		{Type: engine.EventRunStart, Meta: &meta.WorkflowMeta{Name: "audit"}},
		{Type: engine.EventPhase, Title: "Audit"},
	}
	for i := 0; i < 9; i++ {
		feed = append(feed, engine.Event{Type: engine.EventAgentStart})
	}
	for _, outcome := range []agentapi.Status{"completed", "completed", "completed", "completed", "completed", "failed"} {
		u := agentapi.Usage{InputTokens: 2000, OutputTokens: 50}
		feed = append(feed, engine.Event{Type: engine.EventAgentEnd, Outcome: outcome, Usage: &u})
	}
	for _, ev := range feed {
		s.observe(ev)
	}
	got := s.line(4200 * time.Millisecond)
	want := "▸ Audit · agents 3 running, 5 done, 1 failed · 12.3k tokens · 4.2s"
	if got != want {
		t.Errorf("line = %q\n  want %q", got, want)
	}
}

func TestProgressLineFormats(t *testing.T) {
	cases := []struct {
		state   progressState
		elapsed time.Duration
		want    string
	}{
		{progressState{}, 0, "▸ starting · agents 0 running, 0 done, 0 failed · 0 tokens · 0.0s"},
		{progressState{name: "map-reduce", tokens: 999}, 59*time.Second + 940*time.Millisecond, "▸ map-reduce · agents 0 running, 0 done, 0 failed · 999 tokens · 59.9s"},
		{progressState{phase: "Merge", tokens: 4_560_000}, 187 * time.Second, "▸ Merge · agents 0 running, 0 done, 0 failed · 4.6M tokens · 3m07s"},
		{progressState{phase: strings.Repeat("p", 50) + "\nx"}, 0, "▸ " + strings.Repeat("p", 39) + "… · agents 0 running, 0 done, 0 failed · 0 tokens · 0.0s"},
		{progressState{phase: "a\tb"}, 0, "▸ a b · agents 0 running, 0 done, 0 failed · 0 tokens · 0.0s"},
	}
	for _, tc := range cases {
		if got := tc.state.line(tc.elapsed); got != tc.want {
			t.Errorf("line = %q\n  want %q", got, tc.want)
		}
	}
}

func TestProgressOnATerminalIsDrawnInPlaceAndClearedBeforeTheResult(t *testing.T) {
	tty := &terminal{}
	o := invoke(t, call{args: []string{"testdata/slow.js", "--provider", "fake", "--fake-rules", "testdata/slow.rules.json", "--agent-timeout", "350ms"}, stderr: tty})
	o.wantCode(t, exitCompleted)
	if !strings.Contains(o.stderr, clearLine+"▸ Wait · agents 2 running, 0 done, 0 failed") {
		t.Errorf("no live line on the terminal:\n%q", o.stderr)
	}
	if !strings.HasSuffix(o.stderr, clearLine) {
		t.Errorf("the line was not cleared at the end:\n%q", o.stderr)
	}
	if strings.Contains(o.stdout, "▸") {
		t.Errorf("progress leaked onto stdout")
	}
	o.result(t)
}

func TestNoProgressOnATerminalWhenEventsGoThere(t *testing.T) {
	tty := &terminal{}
	o := invoke(t, call{args: []string{"testdata/hello.js", "--provider", "fake", "--events", "-"}, stderr: tty})
	o.wantCode(t, exitCompleted)
	if strings.Contains(o.stderr, "▸") {
		t.Errorf("progress drawn between events:\n%s", o.stderr)
	}
}

func TestNoProgressWhenStderrIsNotATerminal(t *testing.T) {
	o := wfrun(t, "testdata/slow.js", "--provider", "fake", "--fake-rules", "testdata/slow.rules.json", "--agent-timeout", "250ms")
	o.wantCode(t, exitCompleted)
	if o.stderr != "" {
		t.Errorf("stderr = %q, want nothing", o.stderr)
	}
}

func TestStoppingTheProgressLineAgainOrWithoutOneDoesNothing(t *testing.T) {
	var none *progress
	none.stop() // no line was drawn: nothing to stop, no panic

	tty := &terminal{}
	p := startProgress(tty)
	p.stop()
	once := tty.String()
	if !strings.HasSuffix(once, clearLine) {
		t.Fatalf("stop did not clear the line: %q", once)
	}
	p.stop()
	if got := tty.String(); got != once {
		t.Errorf("a second stop wrote %q more; want nothing", strings.TrimPrefix(got, once))
	}
}
