package fake

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi"
)

func TestAFakeContinuedChildAnswersEachTurnByTheRulesAndKeepsItsHistory(t *testing.T) {
	p := New(Options{Rules: mustRules(t, `{"rules":[{"match":"^also","reply":"checked arxiv too"}]}`)})
	c, err := p.Converse(t.Context(), agentapi.ConversationRequest{Request: textRequest("")})
	if err != nil {
		t.Fatal(err)
	}
	first, _ := c.Turn(t.Context(), "research A")
	second, _ := c.Turn(t.Context(), "also check arxiv")
	if first.Text != "research A" || second.Text != "checked arxiv too" {
		t.Fatalf("answers %q, %q", first.Text, second.Text)
	}
	data, err := c.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	resumed, err := p.Converse(t.Context(), agentapi.ConversationRequest{Request: textRequest(""), History: data})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = resumed.Turn(t.Context(), "third")
	data, _ = resumed.Snapshot()
	var h History
	if err := json.Unmarshal(data, &h); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range h.Messages {
		got = append(got, m.Role+":"+m.Content)
	}
	want := []string{"user:research A", "assistant:research A", "user:also check arxiv", "assistant:checked arxiv too", "user:third", "assistant:third"}
	if !slices.Equal(got, want) {
		t.Fatalf("history %q, want %q", got, want)
	}
}

func TestAFakeTurnThatIsCancelledKeepsOnlyItsMessage(t *testing.T) {
	p := New(Options{Rules: mustRules(t, `{"rules":[{"match":"slow","delayMs":60000}]}`)})
	c, _ := p.Converse(t.Context(), agentapi.ConversationRequest{Request: textRequest("")})
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
	defer cancel()
	res, err := c.Turn(ctx, "slow work")
	if err != nil || res.Status != agentapi.StatusTimedOut {
		t.Fatalf("turn: %+v %v", res, err)
	}
	data, _ := c.Snapshot()
	if string(data) != `{"v":1,"messages":[{"role":"user","content":"slow work"}]}` {
		t.Fatalf("history %s", data)
	}
	if _, err := p.Converse(t.Context(), agentapi.ConversationRequest{History: json.RawMessage(`{"v":7}`)}); err == nil {
		t.Fatal("a history of another version was read")
	}
}
