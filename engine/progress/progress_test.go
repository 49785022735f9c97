package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/internal/testkit/leaktest"
	"github.com/wfrun/wfrun/meta"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

func TestProgressLineShowsPhaseAgentsTokensAndElapsedTime(t *testing.T) {
	var s state
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
		state   state
		elapsed time.Duration
		want    string
	}{
		{state{}, 0, "▸ starting · agents 0 running, 0 done, 0 failed · 0 tokens · 0.0s"},
		{state{name: "map-reduce", tokens: 999}, 59*time.Second + 940*time.Millisecond, "▸ map-reduce · agents 0 running, 0 done, 0 failed · 999 tokens · 59.9s"},
		{state{phase: "Merge", tokens: 4_560_000}, 187 * time.Second, "▸ Merge · agents 0 running, 0 done, 0 failed · 4.6M tokens · 3m07s"},
		{state{phase: strings.Repeat("p", 50) + "\nx"}, 0, "▸ " + strings.Repeat("p", 39) + "… · agents 0 running, 0 done, 0 failed · 0 tokens · 0.0s"},
		{state{phase: "a\tb"}, 0, "▸ a b · agents 0 running, 0 done, 0 failed · 0 tokens · 0.0s"},
	}
	for _, tc := range cases {
		if got := tc.state.line(tc.elapsed); got != tc.want {
			t.Errorf("line = %q\n  want %q", got, tc.want)
		}
	}
}

func TestStoppingTheLineAgainOrWithoutOneDoesNothing(t *testing.T) {
	var none *Line
	none.Record(engine.Event{Type: engine.EventPhase, Title: "x"})
	none.Above("text")
	none.Stop() // no line was drawn: nothing to stop, no panic

	var out bytes.Buffer
	p := Start(&out)
	p.Stop() // waits for the ticker: out is the test's alone from here
	once := out.String()
	if !strings.HasSuffix(once, Clear) {
		t.Fatalf("Stop did not clear the line: %q", once)
	}
	p.Stop()
	p.Record(engine.Event{Type: engine.EventPhase, Title: "late"})
	if got := out.String(); got != once {
		t.Errorf("a second Stop or a late event wrote %q more; want nothing", strings.TrimPrefix(got, once))
	}
}
