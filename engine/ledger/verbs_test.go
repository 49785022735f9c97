package ledger

import (
	"strings"
	"testing"
)

// The transition table: every verb from every status, decided by the pure
// function alone.
func TestDecide_TheTransitionTable(t *testing.T) {
	type want struct {
		to     RunStatus
		newRun bool
		refuse string // "" = legal; else part of the refusal
	}
	table := map[RunStatus]map[Verb]want{
		RunRunning: {
			Stop:     {to: RunCancelled},
			Retry:    {refuse: "still running: stop it first"},
			Continue: {refuse: "still running: only an abandoned run"},
			FollowUp: {to: RunRunning},
		},
		RunCompleted: {
			Stop:     {refuse: "nothing to stop"},
			Retry:    {refuse: "nothing to retry"},
			Continue: {refuse: "nothing to continue"},
			FollowUp: {to: RunCompleted},
		},
		RunFailed: {
			Stop:     {refuse: "nothing to stop"},
			Retry:    {to: RunFailed, newRun: true},
			Continue: {refuse: "retry it instead"},
			FollowUp: {to: RunFailed},
		},
		RunCancelled: {
			Stop:     {refuse: "nothing to stop"},
			Retry:    {to: RunCancelled, newRun: true},
			Continue: {refuse: "retry it instead"},
			FollowUp: {to: RunCancelled},
		},
		RunAbandoned: {
			Stop:     {refuse: "nothing to stop"},
			Retry:    {to: RunAbandoned, newRun: true},
			Continue: {to: RunRunning},
			FollowUp: {to: RunAbandoned},
		},
	}
	if len(table) != len(RunStatuses()) {
		t.Fatalf("the table covers %d statuses of %d", len(table), len(RunStatuses()))
	}
	for _, from := range RunStatuses() {
		if len(table[from]) != len(Verbs()) {
			t.Fatalf("the table covers %d verbs from %s, of %d", len(table[from]), from, len(Verbs()))
		}
		for _, v := range Verbs() {
			w := table[from][v]
			tr, err := Decide(from, v)
			switch {
			case w.refuse != "" && err == nil:
				t.Errorf("%s from %s: allowed, want refused (%s)", v, from, w.refuse)
			case w.refuse != "" && !strings.Contains(err.Error(), w.refuse):
				t.Errorf("%s from %s: %q does not say %q", v, from, err, w.refuse)
			case w.refuse == "" && err != nil:
				t.Errorf("%s from %s: refused: %v", v, from, err)
			case w.refuse == "" && (tr.To != w.to || tr.NewRun != w.newRun || tr.From != from || tr.Verb != v):
				t.Errorf("%s from %s = %+v, want to %s, new run %v", v, from, tr, w.to, w.newRun)
			}
		}
	}
}

func TestDecide_UnknownStatusesAndVerbsAreRefused(t *testing.T) {
	if _, err := Decide("exploded", Stop); err == nil {
		t.Error("an unknown status was accepted")
	}
	if _, err := Decide(RunRunning, "pause"); err == nil || !strings.Contains(err.Error(), "the verbs are") {
		t.Errorf("an unknown verb: %v", err)
	}
}

// The statuses are stored in the ledger and shown in JSON: their words
// never change, whichever constant they are spelled from.
func TestTheStatusWordsStay(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{string(RunRunning), "running"}, {string(RunCompleted), "completed"}, {string(RunFailed), "failed"},
		{string(RunCancelled), "cancelled"}, {string(RunAbandoned), "abandoned"},
		{string(ChildPending), "pending"}, {string(ChildRunning), "running"}, {string(ChildCompleted), "completed"},
		{string(ChildFailed), "failed"}, {string(ChildCancelled), "cancelled"}, {string(ChildTimedOut), "timed_out"},
		{string(ChildAbandoned), "abandoned"},
		{string(SubagentRunning), "running"}, {string(SubagentIdle), "idle"}, {string(SubagentReady), "ready"},
		{string(SubagentFailed), "failed"}, {string(SubagentCancelled), "cancelled"},
		{string(TurnQueued), "queued"}, {string(TurnRunning), "running"}, {string(TurnCompleted), "completed"},
		{string(TurnFailed), "failed"}, {string(TurnTimedOut), "timed_out"}, {string(TurnCancelled), "cancelled"},
		{string(TurnAbandoned), "abandoned"},
	} {
		if c.got != c.want {
			t.Errorf("a status says %q, want %q", c.got, c.want)
		}
	}
}
