package ledger_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine/ledger"
)

func newSubagent(t *testing.T, l *ledger.Ledger, id, holder string) ledger.Subagent {
	t.Helper()
	s, err := l.CreateSubagent(t.Context(), ledger.Subagent{ID: id, Owner: "mcp", Depth: 1, Provider: "fake", Label: "research",
		Request: json.RawMessage(`{"prompt":"research A"}`)}, holder, "research A")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestASubagentsTurnsInTheLedger(t *testing.T) {
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	l := open(t, filepath.Join(t.TempDir(), "ledger.db"), c)
	first := newSubagent(t, l, "sa_1", "p1")
	second := newSubagent(t, l, "sa_2", "p1")
	if first.Seq != 1 || second.Seq != 2 || first.Status != ledger.SubagentIdle || first.Turns != 1 {
		t.Fatalf("created %+v, %+v", first, second)
	}
	turn, ok, err := l.ClaimTurn(t.Context(), "sa_1", "p1")
	if err != nil || !ok || turn.N != 1 || turn.Message != "research A" || turn.Status != ledger.TurnRunning {
		t.Fatalf("claim: %+v %v %v", turn, ok, err)
	}
	if n, err := l.Enqueue(t.Context(), "sa_1", "p1", "also check arxiv", 0); err != nil || n != 2 {
		t.Fatalf("enqueue: %d %v", n, err)
	}
	if s, _ := l.GetSubagent(context.Background(), "sa_1"); s.Status != ledger.SubagentRunning || s.Turns != 2 {
		t.Fatalf("during turn 1: %+v", s)
	}
	turn.Status, turn.Text, turn.Usage = ledger.TurnCompleted, "A is old", agentapi.Usage{InputTokens: 10, OutputTokens: 2}
	if err := l.FinishTurn(t.Context(), "sa_1", turn, json.RawMessage(`{"v":1}`), &agentapi.Worktree{Path: "/w", Branch: "wfrun/sa_1"}); err != nil {
		t.Fatal(err)
	}
	next, ok, _ := l.ClaimTurn(t.Context(), "sa_1", "p1")
	if !ok || next.N != 2 || next.Message != "also check arxiv" {
		t.Fatalf("the follow-up is not turn two: %+v", next)
	}
	next.Status, next.Error = ledger.TurnCancelled, "interrupted"
	if err := l.FinishTurn(t.Context(), "sa_1", next, json.RawMessage(`{"v":2}`), nil); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := l.ClaimTurn(t.Context(), "sa_1", "p1"); ok {
		t.Fatal("claimed a turn from an empty inbox")
	}
	s, _ := l.GetSubagent(context.Background(), "sa_1")
	if s.Status != ledger.SubagentIdle || s.LastTurn != 2 || s.LastStatus != ledger.TurnCancelled || s.LastError != "interrupted" ||
		s.Usage.InputTokens != 10 || s.Worktree == nil || s.Worktree.Branch != "wfrun/sa_1" {
		t.Fatalf("after two turns: %+v", s)
	}
	turns, _ := l.Turns(context.Background(), "sa_1")
	if len(turns) != 2 || turns[0].Text != "A is old" || turns[1].Status != ledger.TurnCancelled || turns[0].Ended == nil {
		t.Fatalf("turns %+v", turns)
	}
	all, _ := l.Subagents(context.Background(), "mcp")
	if len(all) != 2 || all[0].ID != "sa_1" || all[1].ID != "sa_2" {
		t.Fatalf("listing %+v", all)
	}
}

func TestASubagentWhoseProcessDiedIsReadyWithItsHistory(t *testing.T) {
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	path := filepath.Join(t.TempDir(), "ledger.db")
	l := open(t, path, c)
	newSubagent(t, l, "sa_1", "dead")
	turn, _, _ := l.ClaimTurn(t.Context(), "sa_1", "dead")
	turn.Status, turn.Text = ledger.TurnCompleted, "done"
	_ = l.FinishTurn(t.Context(), "sa_1", turn, json.RawMessage(`{"history":1}`), nil)
	_, _ = l.Enqueue(t.Context(), "sa_1", "dead", "second", 0)
	_, _, _ = l.ClaimTurn(t.Context(), "sa_1", "dead")

	// Another process while the lease holds: refused.
	_, _, err := l.HoldSubagent(t.Context(), "sa_1", "alive")
	var held *ledger.HeldError
	if !errors.As(err, &held) || !strings.Contains(err.Error(), "loaded by another wfrun process") {
		t.Fatalf("holding a live process's sub-agent: %v", err)
	}
	c.add(11 * time.Second)
	if n, err := l.SweepSubagents(t.Context()); err != nil || n != 1 {
		t.Fatalf("sweep: %d %v", n, err)
	}
	s, _ := l.GetSubagent(context.Background(), "sa_1")
	if s.Status != ledger.SubagentReady || s.Holder != "" {
		t.Fatalf("after the sweep: %+v", s)
	}
	if t2, _ := l.GetTurn(context.Background(), "sa_1", 2); t2.Status != ledger.TurnAbandoned || !strings.Contains(t2.Error, "send the message again") {
		t.Fatalf("the running turn: %+v", t2)
	}
	got, history, err := l.HoldSubagent(t.Context(), "sa_1", "alive")
	if err != nil || got.Status != ledger.SubagentIdle || string(history) != `{"history":1}` {
		t.Fatalf("hold: %+v %s %v", got, history, err)
	}
	if _, err := l.Enqueue(t.Context(), "sa_1", "dead", "from the dead", 0); err == nil {
		t.Fatal("a process that no longer holds the sub-agent enqueued to it")
	}
	if err := l.ReleaseSubagent(t.Context(), "sa_1", "alive"); err != nil {
		t.Fatal(err)
	}
	if s, _ := l.GetSubagent(context.Background(), "sa_1"); s.Status != ledger.SubagentReady {
		t.Fatalf("released: %+v", s)
	}
}

func TestAnEndedSubagentTakesNoMessagesAndItsInboxIsCancelled(t *testing.T) {
	l := open(t, filepath.Join(t.TempDir(), "ledger.db"), nil)
	newSubagent(t, l, "sa_1", "p")
	for i := 0; i < 2; i++ {
		if _, err := l.Enqueue(t.Context(), "sa_1", "p", "more", 3); err != nil {
			t.Fatal(err)
		}
	}
	var full *ledger.InboxFullError
	if _, err := l.Enqueue(t.Context(), "sa_1", "p", "one too many", 3); !errors.As(err, &full) || full.Queued != 3 {
		t.Fatalf("a full inbox: %v", err)
	}
	if err := l.EndSubagent(t.Context(), "sa_1", ledger.SubagentCancelled, "closed by its parent"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Enqueue(t.Context(), "sa_1", "p", "late", 0); err == nil || !strings.Contains(err.Error(), "takes no more messages") {
		t.Fatalf("enqueue after the end: %v", err)
	}
	if _, _, err := l.HoldSubagent(t.Context(), "sa_1", "p"); err == nil {
		t.Fatal("an ended sub-agent was held")
	}
	turns, _ := l.Turns(context.Background(), "sa_1")
	for _, tr := range turns {
		if tr.Status != ledger.TurnCancelled {
			t.Fatalf("turn %d is %s", tr.N, tr.Status)
		}
	}
	s, _ := l.GetSubagent(context.Background(), "sa_1")
	if s.Status != ledger.SubagentCancelled || s.EndedAt == nil || s.LastError != "closed by its parent" {
		t.Fatalf("%+v", s)
	}
	if _, err := l.GetSubagent(context.Background(), "sa_none"); !errors.Is(err, ledger.ErrNoSubagent) {
		t.Fatalf("unknown: %v", err)
	}
}

func TestALongAnswerIsCutInTheLastReportAndKeptWholeInItsTurn(t *testing.T) {
	l := open(t, filepath.Join(t.TempDir(), "ledger.db"), nil)
	newSubagent(t, l, "sa_1", "p1")
	turn, ok, err := l.ClaimTurn(t.Context(), "sa_1", "p1")
	if err != nil || !ok {
		t.Fatalf("claim: %v %v", ok, err)
	}
	answer := strings.Repeat("é", ledger.ReportRunes+500)
	turn.Status, turn.Text = ledger.TurnCompleted, answer
	if err := l.FinishTurn(t.Context(), "sa_1", turn, nil, nil); err != nil {
		t.Fatal(err)
	}
	s, _ := l.GetSubagent(context.Background(), "sa_1")
	if want := strings.Repeat("é", ledger.ReportRunes) + "…"; s.LastReport != want {
		t.Fatalf("the last report is %d runes, want the first %d and an ellipsis", len([]rune(s.LastReport)), ledger.ReportRunes)
	}
	if got, _ := l.GetTurn(context.Background(), "sa_1", 1); got.Text != answer {
		t.Fatalf("the turn keeps %d runes of the answer, not all %d", len([]rune(got.Text)), len([]rune(answer)))
	}
}

func TestEmptyListingsAreEmptyNotNil(t *testing.T) {
	l := open(t, filepath.Join(t.TempDir(), "ledger.db"), nil)
	if err := l.Begin(t.Context(), ledger.Run{ID: "wf_0000000000000001", Owner: "cli", Name: "quiet"}); err != nil {
		t.Fatal(err)
	}
	runs, err := l.List(context.Background(), ledger.Filter{Owner: "nobody"})
	if err != nil || runs == nil || len(runs) != 0 {
		t.Fatalf("List: %#v %v", runs, err)
	}
	kids, err := l.Children(context.Background(), "wf_0000000000000001")
	if err != nil || kids == nil || len(kids) != 0 {
		t.Fatalf("Children: %#v %v", kids, err)
	}
	subs, err := l.Subagents(context.Background(), "nobody")
	if err != nil || subs == nil || len(subs) != 0 {
		t.Fatalf("Subagents: %#v %v", subs, err)
	}
	turns, err := l.Turns(context.Background(), "sa_none")
	if err != nil || turns == nil || len(turns) != 0 {
		t.Fatalf("Turns: %#v %v", turns, err)
	}
	// A listing becomes JSON for wfrun runs --json and the MCP tools: [] there, never null.
	if b, _ := json.Marshal(kids); string(b) != "[]" {
		t.Fatalf("an empty listing encodes as %s", b)
	}
}
