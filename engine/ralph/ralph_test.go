package ralph_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/enginetest"
	"github.com/wfrun/wfrun/engine/ralph"
	"github.com/wfrun/wfrun/internal/testkit/leaktest"
)

func TestMain(m *testing.M) {
	engine.Init() // isolated runs re-execute this test binary
	leaktest.VerifyTestMain(m, leaktest.StateDir())
}

// rounds builds fake rules answering round n with handoffs[n-1].
func rounds(t *testing.T, extra string, handoffs ...string) *fake.Rules {
	t.Helper()
	var rules []string
	if extra != "" {
		rules = append(rules, extra)
	}
	for i, h := range handoffs {
		rules = append(rules, fmt.Sprintf(`{"match":"^You are round %d of","reply":%s,"usage":{"inputTokens":100,"outputTokens":10}}`, i+1, h))
	}
	r, err := fake.Parse([]byte(`{"rules":[` + strings.Join(rules, ",") + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

const (
	cont     = `{"status":"continue","summary":"wrote a part","evidence":[],"nextSteps":["write the next part"]}`
	complete = `{"status":"complete","summary":"all parts written","evidence":["go test ./... passes"],"nextSteps":[]}`
	blocked  = `{"status":"blocked","summary":"stuck","evidence":[],"nextSteps":[],"blocker":"the API key is missing"}`
)

func TestRalph_Endings(t *testing.T) {
	cases := []struct {
		name     string
		handoffs []string
		opts     ralph.Options
		ending   ralph.Ending
		rounds   int
		reason   string // a part of Result.Reason
	}{
		{name: "complete after two rounds that continue", handoffs: []string{cont, cont, complete}, ending: ralph.EndComplete, rounds: 3},
		{name: "blocked", handoffs: []string{cont, blocked}, ending: ralph.EndBlocked, rounds: 2},
		{name: "the round cap", handoffs: []string{cont, cont, cont, cont}, opts: ralph.Options{MaxRounds: 3}, ending: ralph.EndBudgetLimited, rounds: 3, reason: "round cap of 3"},
		{name: "the token budget", handoffs: []string{cont, cont, cont, cont}, opts: ralph.Options{BudgetTokens: 200}, ending: ralph.EndBudgetLimited, rounds: 2, reason: "token budget of 200 is spent"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eng := enginetest.New(t, engine.Config{FakeRules: rounds(t, "", c.handoffs...)})
			o := c.opts
			o.Objective = "write the parts"
			res, err := ralph.Run(context.Background(), eng, o)
			if err != nil {
				t.Fatal(err)
			}
			if res.Ending != c.ending || res.Rounds != c.rounds || !strings.Contains(res.Reason, c.reason) || res.Handoff == nil {
				t.Fatalf("result %+v", res)
			}
			var last ralph.Handoff
			json.Unmarshal([]byte(c.handoffs[c.rounds-1]), &last)
			if res.Handoff.Status != last.Status || res.Handoff.Summary != last.Summary {
				t.Fatalf("last handoff %+v, want %+v", res.Handoff, last)
			}
		})
	}
}

func TestRalph_AnOfflineDryRunCompletesInRoundOne(t *testing.T) {
	// No rules: the fake answers the handoff schema with its example.
	eng := enginetest.New(t, engine.Config{})
	res, err := ralph.Run(context.Background(), eng, ralph.Options{Objective: "write the parts"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ending != ralph.EndComplete || res.Rounds != 1 || res.Handoff == nil || len(res.Handoff.Evidence) == 0 {
		t.Fatalf("result %+v, want complete after round 1", res)
	}
}

func TestRalph_EveryHandoffIsHeldToTheRules(t *testing.T) {
	big := fmt.Sprintf(`{"status":"continue","summary":%q,"evidence":[],"nextSteps":["more"]}`, strings.Repeat("x", 300))
	cases := []struct {
		name, bad, reason string
	}{
		{"continue needs next steps", `{"status":"continue","summary":"s","evidence":[],"nextSteps":[]}`, "needs next steps"},
		{"continue has no blocker", `{"status":"continue","summary":"s","evidence":[],"nextSteps":["a"],"blocker":"b"}`, "has no blocker"},
		{"complete needs evidence", `{"status":"complete","summary":"s","evidence":[],"nextSteps":[]}`, "needs evidence"},
		{"complete has no next steps", `{"status":"complete","summary":"s","evidence":["e"],"nextSteps":["a"]}`, "has no next steps"},
		{"blocked needs the blocker", `{"status":"blocked","summary":"s","evidence":[],"nextSteps":[],"blocker":"  "}`, "needs the blocker"},
		{"an oversized handoff fails its round", big, "over the limit of 200; it is not truncated"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			eng := enginetest.New(t, engine.Config{FakeRules: rounds(t, "", cont, c.bad)})
			res, err := ralph.Run(context.Background(), eng, ralph.Options{Objective: "o", MaxHandoffChars: 200})
			var rf *ralph.RoundFailedError
			if !errors.As(err, &rf) || rf.Round != 2 || !strings.Contains(rf.Reason, c.reason) {
				t.Fatalf("err = %v", err)
			}
			if res.Ending != ralph.EndRoundFailed || res.Rounds != 1 || rf.LastHandoff == nil || rf.LastHandoff.Summary != "wrote a part" {
				t.Fatalf("the last good handoff is not carried: %+v, %+v", res, rf.LastHandoff)
			}
		})
	}
}

func TestRalph_ARoundWhoseAgentFailsCarriesTheLastGoodHandoff(t *testing.T) {
	eng := enginetest.New(t, engine.Config{FakeRules: rounds(t, `{"match":"^You are round 2 of","fail":"the model gave up"}`, cont)})
	_, err := ralph.Run(context.Background(), eng, ralph.Options{Objective: "o"})
	var rf *ralph.RoundFailedError
	if !errors.As(err, &rf) || !strings.Contains(rf.Reason, "the model gave up") || rf.LastHandoff.Status != ralph.StatusContinue {
		t.Fatalf("err = %v", err)
	}
}

func TestRalph_ARoundSeesOnlyTheObjectiveAndTheLastHandoff(t *testing.T) {
	one := strings.Replace(cont, "wrote a part", "wrote part one", 1)
	two := strings.Replace(cont, "wrote a part", "wrote part two", 1)
	p := &countingProvider{Provider: fake.New(fake.Options{Rules: rounds(t, "", one, two, complete)})}
	eng := enginetest.New(t, engine.Config{Providers: []agentapi.Provider{p}})
	if _, err := ralph.Run(context.Background(), eng, ralph.Options{Objective: "ship the parser"}); err != nil {
		t.Fatal(err)
	}
	if len(p.prompts) != 3 {
		t.Fatalf("%d rounds", len(p.prompts))
	}
	first, third := p.prompts[0], p.prompts[2]
	if !strings.Contains(first, "ship the parser") || !strings.Contains(first, "This is the first round") {
		t.Errorf("round 1's prompt:\n%s", first)
	}
	if !strings.Contains(third, "ship the parser") || !strings.Contains(third, "The handoff of round 2:") ||
		!strings.Contains(third, "wrote part two") || strings.Contains(third, "wrote part one") {
		t.Errorf("round 3's prompt:\n%s", third)
	}
}

func TestRalph_AStoppedLoopResumesAtTheNextRound(t *testing.T) {
	runs := t.TempDir()
	slow := rounds(t, `{"match":"^You are round 3 of","delayMs":30000}`, cont, cont)
	eng := enginetest.New(t, engine.Config{RunsDir: runs, FakeRules: slow})
	two := make(chan struct{})
	var once sync.Once
	n := 0
	r, err := ralph.Start(context.Background(), eng, ralph.Options{Objective: "o", OnEvent: func(ev engine.Event) {
		if ev.Type == engine.EventAgentEnd {
			if n++; n == 2 {
				once.Do(func() { close(two) })
			}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-two:
	case <-time.After(10 * time.Second):
		t.Fatal("two rounds did not end")
	}
	r.Cancel("stopped by the test")
	stopped := r.Wait()

	count := &countingProvider{Provider: fake.New(fake.Options{Rules: rounds(t, "", cont, cont, complete)})}
	eng2 := enginetest.New(t, engine.Config{RunsDir: runs, Providers: []agentapi.Provider{count}})
	res, err := ralph.Run(context.Background(), eng2, ralph.Options{Objective: "o", ResumeFromRunId: stopped.RunID})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ending != ralph.EndComplete || res.Rounds != 3 || res.Workflow.Agents.Replayed != 2 || count.n != 1 {
		t.Fatalf("resumed %+v, agents %+v, the provider ran %d rounds", res, res.Workflow.Agents, count.n)
	}
}

type countingProvider struct {
	agentapi.Provider
	mu      sync.Mutex
	n       int
	prompts []string
}

func (p *countingProvider) Run(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
	p.mu.Lock()
	p.n++
	p.prompts = append(p.prompts, req.Prompt)
	p.mu.Unlock()
	return p.Provider.Run(ctx, req)
}

func TestRalph_BadOptionsAreRefused(t *testing.T) {
	for _, o := range []ralph.Options{{}, {Objective: "  "}, {Objective: "o", MaxRounds: -1}, {Objective: "o", MaxRounds: 5000}} {
		if _, err := ralph.Request(o); engine.CodeOf(err) != engine.CodeInvalidRequest {
			t.Errorf("%+v: %v", o, err)
		}
	}
}
