package main

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"
)

// ask sends one chat completion request for prompt as worker and returns
// the answer's content.
func ask(ctx context.Context, ep *endpoint, worker, prompt string) (string, error) {
	body := `{"model":"m","messages":[{"role":"system","content":"be brief"},{"role":"user","content":` + quote(prompt) + `}]}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.baseURL(worker)+"/chat/completions", strings.NewReader(body))
	if err != nil {
		return "", err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || len(out.Choices) != 1 {
		return "", errors.New("not a chat completion")
	}
	return out.Choices[0].Message.Content, nil
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestEndpoint_AnswersEachPromptAndCountsItPerPromptAndPerWorker(t *testing.T) {
	ep, err := newEndpoint(time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.close()
	for _, c := range []struct{ worker, prompt string }{{"a", "one"}, {"a", "two"}, {"b", "one"}} {
		got, err := ask(context.Background(), ep, c.worker, c.prompt)
		if err != nil || got != "done: "+c.prompt {
			t.Fatalf("%s asking %q: %q %v", c.worker, c.prompt, got, err)
		}
	}
	seen := ep.snapshot()
	if seen.Prompts["one"] != (promptCount{Asked: 2, Answered: 2}) || seen.Prompts["two"] != (promptCount{Asked: 1, Answered: 1}) {
		t.Errorf("prompts %+v", seen.Prompts)
	}
	if seen.Workers["a"] != (workerCount{Asked: 2, Answered: 2}) || seen.Workers["b"] != (workerCount{Asked: 1, Answered: 1}) {
		t.Errorf("workers %+v", seen.Workers)
	}
}

func TestEndpoint_AHeldWorkerIsNeverAnsweredAndItsCallCountsAsCutWhenTheCallerGoes(t *testing.T) {
	ep, err := newEndpoint(time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.close()
	ep.hold("a")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := ask(ctx, ep, "a", "held")
		done <- err
	}()
	if err := ep.waitFor(context.Background(), func(c counts) bool { return c.Workers["a"].Held == 1 }); err != nil {
		t.Fatal(err)
	}
	if got, err := ask(context.Background(), ep, "b", "free"); err != nil || got != "done: free" {
		t.Fatalf("another worker is not answered while a is held: %q %v", got, err)
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the held request was answered")
	}
	if err := ep.waitFor(context.Background(), func(c counts) bool { return c.Workers["a"].Cut == 1 }); err != nil {
		t.Fatal(err)
	}
	seen := ep.snapshot()
	if seen.Workers["a"] != (workerCount{Asked: 1, Cut: 1}) || seen.Prompts["held"] != (promptCount{Asked: 1}) {
		t.Errorf("after the caller went: worker %+v, prompt %+v", seen.Workers["a"], seen.Prompts["held"])
	}
}

func TestAskedAgain_FlagsAFinishedAgentAskedAgainAndNothingElse(t *testing.T) {
	cases := []struct {
		name     string
		attempt  int
		seen     promptCount
		flagged  bool
		contains string
	}{
		{"asked and answered once on the first attempt", 1, promptCount{Asked: 1, Answered: 1}, false, ""},
		{"cut short, then finished on the second attempt", 2, promptCount{Asked: 2, Answered: 1}, false, ""},
		{"answered to a worker that died before it reported, then again", 2, promptCount{Asked: 2, Answered: 2}, false, ""},
		{"its worker died before it asked, then finished", 2, promptCount{Asked: 1, Answered: 1}, false, ""},
		{"finished on the first attempt and asked again", 1, promptCount{Asked: 2, Answered: 2}, true, "asked again"},
		{"finished on the second attempt and asked a third time", 2, promptCount{Asked: 3, Answered: 2}, true, "asked again"},
		{"completed without reaching the endpoint", 1, promptCount{}, true, "never saw it"},
		{"asked once, answered but never recorded as answered", 1, promptCount{Asked: 1}, true, "answered 0 times"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := askedAgain([]*agent{{prompt: "p", attempt: c.attempt, completed: true}}, counts{Prompts: map[string]promptCount{"p": c.seen}})
			if (len(got) > 0) != c.flagged || (c.flagged && !strings.Contains(got[0], c.contains)) {
				t.Fatalf("askedAgain = %q, want flagged %v (%q)", got, c.flagged, c.contains)
			}
		})
	}
}
