package openai

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/workspace"
	"github.com/wfrun/wfrun/internal/wferr"
)

func converse(t *testing.T, p *Provider, creq agentapi.ConversationRequest) agentapi.Conversation {
	t.Helper()
	if creq.AgentID == "" {
		creq.AgentID = "sa_1"
	}
	c, err := p.Converse(t.Context(), creq)
	if err != nil {
		t.Fatalf("Converse: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background(), false) })
	return c
}

func turn(t *testing.T, c agentapi.Conversation, msg string) agentapi.Result {
	t.Helper()
	res, err := c.Turn(t.Context(), msg)
	if err != nil {
		t.Fatalf("Turn(%q): %v", msg, err)
	}
	return res
}

// roles renders a request's messages as "role:content" lines.
func roles(r goopenai.ChatCompletionRequest) []string {
	var out []string
	for _, m := range r.Messages {
		if m.Role == goopenai.ChatMessageRoleSystem {
			out = append(out, "system")
			continue
		}
		out = append(out, m.Role+":"+m.Content)
	}
	return out
}

func TestAContinuedChildCarriesItsHistoryIntoTheNextTurn(t *testing.T) {
	s := newServer(t, reply("A is old", usage{30, 4, 0}), reply("and well cited", usage{50, 3, 0}))
	c := converse(t, mustNew(t, testConfig(s)), agentapi.ConversationRequest{})
	first := turn(t, c, "research A")
	second := turn(t, c, "also check arxiv")
	if first.Text != "A is old" || second.Text != "and well cited" {
		t.Fatalf("answers %q, %q", first.Text, second.Text)
	}
	if first.Usage.InputTokens != 30 || second.Usage.InputTokens != 50 || second.Usage.OutputTokens != 3 {
		t.Fatalf("each turn's usage is its own: %+v, %+v", first.Usage, second.Usage)
	}
	want := []string{"system", "user:research A", "assistant:A is old", "user:also check arxiv"}
	if got := roles(s.requests()[1].body); !slices.Equal(got, want) {
		t.Fatalf("turn two sent %q, want %q", got, want)
	}
}

func TestAContinuedChildIsResumedFromItsSnapshotByAnotherProvider(t *testing.T) {
	s := newServer(t, reply("first answer", usage{10, 2, 0}), reply("second answer", usage{20, 2, 0}))
	dir := t.TempDir()
	before, err := mustNew(t, testConfig(s)).Converse(t.Context(), agentapi.ConversationRequest{Request: agentapi.Request{AgentID: "sa_r"}, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	turn(t, before, "first question")
	history, err := before.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	before.Close(t.Context(), true)

	after := converse(t, mustNew(t, testConfig(s)), agentapi.ConversationRequest{Request: agentapi.Request{AgentID: "sa_r"}, Dir: dir, History: history})
	if got := turn(t, after, "second question"); got.Text != "second answer" {
		t.Fatalf("resumed turn: %+v", got)
	}
	want := []string{"system", "user:first question", "assistant:first answer", "user:second question"}
	if got := roles(s.requests()[1].body); !slices.Equal(got, want) {
		t.Fatalf("the resumed child sent %q, want %q", got, want)
	}
	data, err := os.ReadFile(filepath.Join(dir, TranscriptFile))
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("transcript line %q: %v", line, err)
		}
		types = append(types, r.Type)
	}
	if i := slices.Index(types, "resume"); types[0] != "start" || i < 0 || types[len(types)-1] != "end" || !slices.Contains(types[:i], "end") {
		t.Fatalf("the transcript is not appended across the resume: %v", types)
	}
}

func TestACancelledTurnLeavesAHistoryTheNextTurnContinues(t *testing.T) {
	arrived := make(chan struct{})
	s := newServer(t, hang(arrived), reply("picked up again", usage{5, 3, 0}))
	c := converse(t, mustNew(t, testConfig(s)), agentapi.ConversationRequest{})
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-arrived
		cancel()
	}()
	res, err := c.Turn(ctx, "a long task")
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, res, agentapi.StatusCancelled, agentapi.FailureCancelled)
	if got := turn(t, c, "go on with something else"); got.Text != "picked up again" {
		t.Fatalf("after the cancelled turn: %+v", got)
	}
	want := []string{"system", "user:a long task", "user:go on with something else"}
	if got := roles(s.requests()[1].body); !slices.Equal(got, want) {
		t.Fatalf("the turn after a cancelled one sent %q, want %q", got, want)
	}
}

func TestAContinuedChildGetsTheHostsToolsNarrowedByItsPersona(t *testing.T) {
	var called []string
	host := &toolbox{tools: fakeTools("subagent_start"), fn: func(_ context.Context, name string, args json.RawMessage) (string, error) {
		called = append(called, name+" "+string(args))
		return "started sa_2", nil
	}}
	s := newServer(t,
		callTools(usage{1, 1, 0}, call{"c1", "subagent_start", `{"q":"dig"}`}),
		reply("delegated", usage{1, 1, 0}),
		reply("explored", usage{1, 1, 0}))
	p := mustNew(t, testConfig(s))
	general := converse(t, p, agentapi.ConversationRequest{Request: agentapi.Request{AgentID: "sa_g"}, Tools: host})
	if got := turn(t, general, "split the work"); got.Text != "delegated" {
		t.Fatalf("general: %+v", got)
	}
	if !slices.Equal(toolNames(s.requests()[0].body), []string{"subagent_start"}) || len(called) != 1 {
		t.Fatalf("the host's tool: offered %v, called %v", toolNames(s.requests()[0].body), called)
	}
	explorer := converse(t, p, agentapi.ConversationRequest{Request: agentapi.Request{AgentID: "sa_e", Persona: "Explore"}, Tools: host})
	turn(t, explorer, "look around")
	if got := toolNames(s.requests()[2].body); slices.Contains(got, "subagent_start") {
		t.Fatalf("a persona without the tool was offered it: %v", got)
	}
}

func TestAHistoryTheProviderDidNotWriteIsRefused(t *testing.T) {
	s := newServer(t)
	p := mustNew(t, testConfig(s))
	for _, history := range []string{`{"v":99,"messages":[]}`, `[1,2]`, `{"v":1,"messages":[{"role":"user","content":"x"}]}`} {
		_, err := p.Converse(t.Context(), agentapi.ConversationRequest{Request: agentapi.Request{AgentID: "sa_1"}, History: json.RawMessage(history)})
		var we *wferr.Error
		if !errors.As(err, &we) || we.Code != wferr.AgentStart || !strings.Contains(err.Error(), "start a new one") {
			t.Errorf("history %s: %v", history, err)
		}
	}
}

func TestAnIsolatedContinuedChildKeepsItsWorktreeAcrossAResume(t *testing.T) {
	ws := repo(t, workspace.WorkspaceWrite)
	s := newServer(t,
		callTools(usage{1, 1, 0}, call{"c1", "Write", `{"file_path": "draft.md", "content": "draft\n"}`}),
		reply("drafted", usage{1, 1, 0}),
		reply("still here", usage{1, 1, 0}))
	cfg := testConfig(s)
	cfg.Workspace = ws
	req := agentapi.Request{AgentID: "sa_iso", Isolation: IsolationWorktree}
	first, err := mustNew(t, cfg).Converse(t.Context(), agentapi.ConversationRequest{Request: req})
	if err != nil {
		t.Fatal(err)
	}
	res := turn(t, first, "write a draft")
	if res.Worktree == nil {
		t.Fatalf("a turn of an isolated child does not name its worktree: %+v", res)
	}
	path := res.Worktree.Path
	history, _ := first.Snapshot()
	if kept := first.Close(t.Context(), true); kept != nil {
		t.Fatalf("Close(keep) ended the worktree: %+v", kept)
	}
	if _, err := os.Stat(filepath.Join(path, "draft.md")); err != nil {
		t.Fatalf("the worktree is not kept for the resume: %v", err)
	}
	second, err := mustNew(t, cfg).Converse(t.Context(), agentapi.ConversationRequest{Request: req, History: history})
	if err != nil {
		t.Fatal(err)
	}
	if res := turn(t, second, "look again"); res.Worktree == nil || res.Worktree.Path != path {
		t.Fatalf("the resumed child is not in its worktree: %+v", res.Worktree)
	}
	kept := second.Close(t.Context(), false)
	if kept == nil || kept.Path != path {
		t.Fatalf("the changed worktree is not kept when the child is over: %+v", kept)
	}

	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	_, err = mustNew(t, cfg).Converse(t.Context(), agentapi.ConversationRequest{Request: req, History: history})
	var we *wferr.Error
	if !errors.As(err, &we) || we.Code != wferr.AgentStart || !strings.Contains(err.Error(), "is gone") {
		t.Fatalf("resuming into a removed worktree: %v", err)
	}
}

// FuzzConverseHistory feeds arbitrary bytes to Converse as a saved
// history: it resumes the conversation or refuses it with an error, and a
// history it takes comes back the same from Snapshot.
func FuzzConverseHistory(f *testing.F) {
	for _, seed := range []string{
		`{"v":1,"messages":[{"role":"system","content":"s"},{"role":"user","content":"u"}]}`,
		`{"v":1,"messages":[{"role":"system","content":"s"}],"toolMode":true,"callNo":3,"toolResultSizes":{"c1":10}}`,
		`{"v":1,"messages":[{"role":"system","content":"s"}],"worktree":{"path":"/x","branch":"b","base":"c"}}`,
		`{"v":2}`, `null`, `[]`, `{"v":1,"messages":[{"role":"system","content":1}]}`, "\x00",
	} {
		f.Add(seed)
	}
	p, err := New(Config{BaseURL: "http://127.0.0.1:1/v1", Model: "gpt-4o-mini"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, history string) {
		c, err := p.Converse(context.Background(), agentapi.ConversationRequest{Request: agentapi.Request{AgentID: "sa_f"}, History: json.RawMessage(history)})
		if err != nil {
			return
		}
		defer c.Close(context.Background(), true)
		again, err := c.Snapshot()
		if err != nil {
			t.Fatalf("history %q resumed but does not save: %v", history, err)
		}
		c2, err := p.Converse(context.Background(), agentapi.ConversationRequest{Request: agentapi.Request{AgentID: "sa_f"}, History: again})
		if err != nil {
			t.Fatalf("a saved history %s does not resume: %v", again, err)
		}
		c2.Close(context.Background(), true)
	})
}
