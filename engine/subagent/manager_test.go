package subagent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/ledger"
	"github.com/wfrun/wfrun/engine/subagent"
	"github.com/wfrun/wfrun/internal/testkit/leaktest"
	"github.com/wfrun/wfrun/internal/wferr"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m, leaktest.StateDir()) }

// The fake's rules for these tests: "slow" turns take 300 ms, "linger"
// turns a minute (they are interrupted or closed), "broken" turns fail.
const rules = `{"rules":[
	{"match":"^slow","delayMs":300},
	{"match":"^linger","delayMs":60000},
	{"match":"^broken","fail":"the tests would not pass"}
]}`

var me = subagent.Caller{Owner: "mcp"}

// host is an engine that keeps its runs in a folder, and the manager of
// its sub-agents. close ends both, as a server process ends; a new host
// on the same folder is the next process.
type host struct {
	eng *engine.Engine
	m   *subagent.Manager
	dir string

	once sync.Once
}

func newHost(t *testing.T, dir string, opts subagent.Options, providers ...agentapi.Provider) *host {
	t.Helper()
	r, err := fake.Parse([]byte(rules))
	if err != nil {
		t.Fatal(err)
	}
	eng, err := engine.New(engine.Config{RunsDir: dir + "/runs", FakeRules: r, Providers: providers, Heartbeat: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	m, err := subagent.New(eng, opts)
	if err != nil {
		t.Fatal(err)
	}
	h := &host{eng: eng, m: m, dir: dir}
	t.Cleanup(func() { h.close(t) })
	return h
}

func (h *host) close(t *testing.T) {
	h.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := h.m.Close(ctx); err != nil {
			t.Errorf("manager close: %v", err)
		}
		if err := h.eng.Close(ctx); err != nil {
			t.Errorf("engine close: %v", err)
		}
	})
}

func start(t *testing.T, h *host, caller subagent.Caller, prompt string) subagent.Entry {
	t.Helper()
	e, err := h.m.Start(t.Context(), caller, subagent.StartRequest{Prompt: prompt})
	if err != nil {
		t.Fatalf("start %q: %v", prompt, err)
	}
	return e
}

func send(t *testing.T, h *host, caller subagent.Caller, id, msg string) int {
	t.Helper()
	n, err := h.m.Send(t.Context(), caller, id, msg)
	if err != nil {
		t.Fatalf("send %q: %v", msg, err)
	}
	return n
}

// result waits for a turn (0: the current one) and fails the test unless
// it ended.
func result(t *testing.T, h *host, caller subagent.Caller, id string, turn int) subagent.TurnResult {
	t.Helper()
	r, err := h.m.Result(t.Context(), caller, id, turn, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Done {
		t.Fatalf("turn %d of %s did not end: %+v", r.Turn, id, r)
	}
	return r
}

// history is the fake conversation the ledger saved for id, as
// "role:content" lines.
func history(t *testing.T, h *host, id string) []string {
	t.Helper()
	data, _, err := h.eng.Ledger().History(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var hist fake.History
	if err := json.Unmarshal(data, &hist); err != nil {
		t.Fatalf("history %s: %v", data, err)
	}
	var out []string
	for _, m := range hist.Messages {
		out = append(out, m.Role+":"+m.Content)
	}
	return out
}

// until polls cond for up to 10 s.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10 s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func runningTurn(t *testing.T, h *host, id string) int {
	t.Helper()
	e, err := h.m.Get(me, id)
	if err != nil {
		t.Fatal(err)
	}
	return e.RunningTurn
}

func wantCode(t *testing.T, err error, code wferr.Code, sub string) {
	t.Helper()
	var we *wferr.Error
	if !errors.As(err, &we) || we.Code != code || !strings.Contains(err.Error(), sub) {
		t.Fatalf("error %v, want %s containing %q", err, code, sub)
	}
}

func TestTheFirstTurnRunsInTheBackgroundAndItsAnswerIsTheResult(t *testing.T) {
	h := newHost(t, t.TempDir(), subagent.Options{})
	e := start(t, h, me, "slow research on A")
	if !strings.HasPrefix(e.ChildID, "sa_") || e.Depth != 1 || e.Parent != "" || e.Turns != 1 || e.Label != "slow research on A" {
		t.Fatalf("entry %+v", e)
	}
	r := result(t, h, me, e.ChildID, 0)
	if r.Turn != 1 || r.Status != ledger.TurnCompleted || r.Text != "slow research on A" || r.Usage.InputTokens == 0 {
		t.Fatalf("result %+v", r)
	}
	got, _ := h.m.Get(me, e.ChildID)
	if got.Status != ledger.SubagentIdle || got.LastTurn != 1 || got.LastReport != "slow research on A" || got.Usage.InputTokens == 0 {
		t.Fatalf("after the turn: %+v", got)
	}
}

func TestAFollowUpSentDuringATurnWaitsForItAndRunsAsTheNextTurn(t *testing.T) {
	h := newHost(t, t.TempDir(), subagent.Options{})
	e := start(t, h, me, "slow research on A")
	until(t, "turn one runs", func() bool { return runningTurn(t, h, e.ChildID) == 1 })
	if n := send(t, h, me, e.ChildID, "also check arxiv"); n != 2 {
		t.Fatalf("the follow-up is turn %d", n)
	}
	if e, _ := h.m.Get(me, e.ChildID); e.RunningTurn != 1 || e.Queued != 1 {
		t.Fatalf("the follow-up redirected the running turn: %+v", e)
	}
	first := result(t, h, me, e.ChildID, 0)
	second := result(t, h, me, e.ChildID, 0)
	if first.Turn != 1 || first.Text != "slow research on A" || second.Turn != 2 || second.Text != "also check arxiv" {
		t.Fatalf("turns %+v, %+v", first, second)
	}
	want := []string{"user:slow research on A", "assistant:slow research on A", "user:also check arxiv", "assistant:also check arxiv"}
	if got := history(t, h, e.ChildID); !slices.Equal(got, want) {
		t.Fatalf("history %q, want %q", got, want)
	}
}

func TestAnInterruptEndsTheTurnOnlyAndTheInboxRunsOnAndALaterSendWakesTheChild(t *testing.T) {
	h := newHost(t, t.TempDir(), subagent.Options{})
	e := start(t, h, me, "linger over B")
	until(t, "turn one runs", func() bool { return runningTurn(t, h, e.ChildID) == 1 })
	send(t, h, me, e.ChildID, "then summarise")
	n, err := h.m.Interrupt(me, e.ChildID)
	if err != nil || n != 1 {
		t.Fatalf("interrupt: %d %v", n, err)
	}
	cancelled := result(t, h, me, e.ChildID, 1)
	if cancelled.Status != ledger.TurnCancelled || cancelled.Error != "interrupted by its parent" {
		t.Fatalf("the interrupted turn: %+v", cancelled)
	}
	if next := result(t, h, me, e.ChildID, 2); next.Status != ledger.TurnCompleted || next.Text != "then summarise" {
		t.Fatalf("the queued message after the interrupt: %+v", next)
	}
	if n, err := h.m.Interrupt(me, e.ChildID); err != nil || n != 0 {
		t.Fatalf("interrupting an idle child: %d %v", n, err)
	}
	if got, _ := h.m.Get(me, e.ChildID); got.Status != ledger.SubagentIdle {
		t.Fatalf("after the interrupt the child is %s", got.Status)
	}
	send(t, h, me, e.ChildID, "one more thing")
	if last := result(t, h, me, e.ChildID, 0); last.Turn != 3 || last.Text != "one more thing" {
		t.Fatalf("the later send: %+v", last)
	}
	want := []string{"user:linger over B", "user:then summarise", "assistant:then summarise", "user:one more thing", "assistant:one more thing"}
	if got := history(t, h, e.ChildID); !slices.Equal(got, want) {
		t.Fatalf("history %q, want %q", got, want)
	}
}

func TestAChildOfAClosedServerIsReadyAndASendResumesItWithItsHistory(t *testing.T) {
	dir := t.TempDir()
	before := newHost(t, dir, subagent.Options{})
	e := start(t, before, me, "research A")
	result(t, before, me, e.ChildID, 0)
	lingering := start(t, before, me, "linger over C")
	until(t, "the lingering turn runs", func() bool { return runningTurn(t, before, lingering.ChildID) == 1 })
	send(t, before, me, lingering.ChildID, "afterwards, list sources")
	before.close(t)

	after := newHost(t, dir, subagent.Options{})
	list, err := after.m.List(me, subagent.ScopeChildren)
	if err != nil || len(list) != 2 {
		t.Fatalf("list after the restart: %+v %v", list, err)
	}
	for _, got := range list {
		if got.Status != ledger.SubagentReady {
			t.Fatalf("%s is %s after the restart, want ready", got.ChildID, got.Status)
		}
	}
	if list[1].LastStatus != ledger.TurnCancelled || list[1].Queued != 1 {
		t.Fatalf("the turn the shutdown cut: %+v", list[1])
	}
	if r, _ := after.m.Result(t.Context(), me, lingering.ChildID, 2, time.Second); r.Done || r.Status != ledger.TurnQueued {
		t.Fatalf("a ready child ran its inbox without being woken: %+v", r)
	}
	send(t, after, me, e.ChildID, "and now B")
	if r := result(t, after, me, e.ChildID, 0); r.Turn != 2 || r.Text != "and now B" {
		t.Fatalf("the resumed turn: %+v", r)
	}
	want := []string{"user:research A", "assistant:research A", "user:and now B", "assistant:and now B"}
	if got := history(t, after, e.ChildID); !slices.Equal(got, want) {
		t.Fatalf("history after the resume %q, want %q", got, want)
	}
	// Waking the other runs the message the shutdown left queued first.
	send(t, after, me, lingering.ChildID, "and then stop")
	if r := result(t, after, me, lingering.ChildID, 2); r.Text != "afterwards, list sources" {
		t.Fatalf("the queued message: %+v", r)
	}
	if r := result(t, after, me, lingering.ChildID, 3); r.Text != "and then stop" {
		t.Fatalf("the waking message: %+v", r)
	}
}

func TestConcurrentSendsKeepTheirOrderAndNoneIsLost(t *testing.T) {
	h := newHost(t, t.TempDir(), subagent.Options{})
	e := start(t, h, me, "slow start")
	const senders = 24
	turns := make([]int, senders)
	var wg sync.WaitGroup
	for i := range senders {
		wg.Go(func() {
			n, err := h.m.Send(context.Background(), me, e.ChildID, fmt.Sprintf("message %d", i))
			if err != nil {
				t.Error(err)
			}
			turns[i] = n
		})
	}
	wg.Wait()
	byTurn := map[int]string{}
	for i, n := range turns {
		if _, dup := byTurn[n]; dup || n < 2 || n > senders+1 {
			t.Fatalf("turn numbers %v", turns)
		}
		byTurn[n] = fmt.Sprintf("message %d", i)
	}
	if r := result(t, h, me, e.ChildID, senders+1); r.Status != ledger.TurnCompleted {
		t.Fatalf("the last turn: %+v", r)
	}
	want := []string{"user:slow start", "assistant:slow start"}
	for n := 2; n <= senders+1; n++ {
		want = append(want, "user:"+byTurn[n], "assistant:"+byTurn[n])
	}
	if got := history(t, h, e.ChildID); !slices.Equal(got, want) {
		t.Fatalf("the turns did not run in the order the messages were accepted:\n got %q\nwant %q", got, want)
	}
	turnsNow, _ := h.m.Turns(me, e.ChildID)
	for i, tr := range turnsNow {
		if tr.N != i+1 || tr.Status != ledger.TurnCompleted || (i > 0 && tr.Message != byTurn[tr.N]) {
			t.Fatalf("turn %d: %+v", i+1, tr)
		}
	}
}

func TestTheDepthLimitAndWhoMayTalkToWhom(t *testing.T) {
	var toolsFor []string
	var mu sync.Mutex
	h := newHost(t, t.TempDir(), subagent.Options{ChildTools: func(c subagent.Caller) agentapi.Toolbox {
		mu.Lock()
		toolsFor = append(toolsFor, c.Child)
		mu.Unlock()
		return nil
	}})
	a := start(t, h, me, "A")
	c := start(t, h, me, "C")
	b := start(t, h, subagent.Caller{Owner: "mcp", Child: a.ChildID}, "B, under A")
	d := start(t, h, subagent.Caller{Owner: "mcp", Child: a.ChildID}, "D, under A")
	if b.Depth != 2 || b.Parent != a.ChildID {
		t.Fatalf("grandchild %+v", b)
	}
	_, err := h.m.Start(t.Context(), subagent.Caller{Owner: "mcp", Child: b.ChildID}, subagent.StartRequest{Prompt: "too deep"})
	wantCode(t, err, wferr.Nesting, "the depth limit")
	mu.Lock()
	if !slices.Equal(toolsFor, []string{a.ChildID, c.ChildID}) {
		t.Errorf("sub-agent tools were given to %v, want only the depth-1 children %s and %s", toolsFor, a.ChildID, c.ChildID)
	}
	mu.Unlock()

	_, err = h.m.Send(t.Context(), me, b.ChildID, "hello grandchild")
	wantCode(t, err, wferr.InvalidRequest, "is not your direct child: it was started by your sub-agent "+a.ChildID)
	_, err = h.m.Interrupt(me, b.ChildID)
	wantCode(t, err, wferr.InvalidRequest, "only a sub-agent's parent may interrupt it")
	if n := send(t, h, subagent.Caller{Owner: "mcp", Child: a.ChildID}, b.ChildID, "from your parent"); n != 2 {
		t.Fatalf("the parent's send is turn %d", n)
	}
	_, err = h.m.Send(t.Context(), subagent.Caller{Owner: "someone-else"}, a.ChildID, "not mine")
	wantCode(t, err, wferr.InvalidRequest, "no sub-agent")
	_, err = h.m.Send(t.Context(), subagent.Caller{Owner: "mcp", Child: c.ChildID}, b.ChildID, "a cousin")
	wantCode(t, err, wferr.InvalidRequest, "no sub-agent")

	ids := func(es []subagent.Entry) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.ChildID)
		}
		return out
	}
	kids, _ := h.m.List(me, subagent.ScopeChildren)
	all, _ := h.m.List(me, subagent.ScopeDescendants)
	under, _ := h.m.List(subagent.Caller{Owner: "mcp", Child: a.ChildID}, subagent.ScopeChildren)
	if !slices.Equal(ids(kids), []string{a.ChildID, c.ChildID}) ||
		!slices.Equal(ids(all), []string{a.ChildID, b.ChildID, d.ChildID, c.ChildID}) ||
		!slices.Equal(ids(under), []string{b.ChildID, d.ChildID}) {
		t.Fatalf("children %v, descendants %v, under A %v", ids(kids), ids(all), ids(under))
	}
	if _, err := h.m.List(me, "cousins"); err == nil {
		t.Fatal("an unknown scope was accepted")
	}
}

func TestClosingAChildEndsItsTreeAndItTakesNoMoreMessages(t *testing.T) {
	h := newHost(t, t.TempDir(), subagent.Options{})
	a := start(t, h, me, "linger over A")
	b := start(t, h, subagent.Caller{Owner: "mcp", Child: a.ChildID}, "linger under A")
	until(t, "both run", func() bool { return runningTurn(t, h, a.ChildID) == 1 && runningTurn(t, h, b.ChildID) == 1 })
	send(t, h, me, a.ChildID, "queued behind")
	got, err := h.m.CloseChild(t.Context(), me, a.ChildID, "")
	if err != nil || got.Status != ledger.SubagentCancelled {
		t.Fatalf("close: %+v %v", got, err)
	}
	if child, _ := h.m.Get(me, b.ChildID); child.Status != ledger.SubagentCancelled {
		t.Fatalf("the closed child's own child is %s", child.Status)
	}
	turns, _ := h.m.Turns(me, a.ChildID)
	for _, tr := range turns {
		if tr.Status != ledger.TurnCancelled {
			t.Fatalf("turn %d of a closed child is %s", tr.N, tr.Status)
		}
	}
	_, err = h.m.Send(t.Context(), me, a.ChildID, "are you there")
	wantCode(t, err, wferr.InvalidRequest, "takes no more messages")
}

func TestEveryEndedTurnIsReportedToTheWatchers(t *testing.T) {
	h := newHost(t, t.TempDir(), subagent.Options{})
	var mu sync.Mutex
	var reports []subagent.Report
	stop := h.m.Watch(func(r subagent.Report) {
		mu.Lock()
		reports = append(reports, r)
		mu.Unlock()
	})
	defer stop()
	e := start(t, h, me, "broken build")
	r := result(t, h, me, e.ChildID, 0)
	if r.Status != ledger.TurnFailed || r.Failure != string(agentapi.FailureTaskFailed) {
		t.Fatalf("a failed turn: %+v", r)
	}
	send(t, h, me, e.ChildID, "try again, differently")
	result(t, h, me, e.ChildID, 2)
	until(t, "two reports", func() bool { mu.Lock(); defer mu.Unlock(); return len(reports) == 2 })
	mu.Lock()
	defer mu.Unlock()
	if reports[0].Status != ledger.TurnFailed || reports[0].Error != "the tests would not pass" || reports[0].Owner != "mcp" ||
		reports[1].Status != ledger.TurnCompleted || reports[1].Report != "try again, differently" || reports[1].Turn != 2 {
		t.Fatalf("reports %+v", reports)
	}
}

func TestASchemaTurnAnswersJSONAndABadSchemaIsRefused(t *testing.T) {
	h := newHost(t, t.TempDir(), subagent.Options{})
	e, err := h.m.Start(t.Context(), me, subagent.StartRequest{Prompt: "rate it",
		Schema: json.RawMessage(`{"type":"object","properties":{"score":{"type":"integer","minimum":3}},"required":["score"]}`)})
	if err != nil {
		t.Fatal(err)
	}
	if r := result(t, h, me, e.ChildID, 0); string(r.Output) != `{"score":3}` {
		t.Fatalf("schema turn: %+v", r)
	}
	_, err = h.m.Start(t.Context(), me, subagent.StartRequest{Prompt: "x", Schema: json.RawMessage(`{"type":"array"}`)})
	wantCode(t, err, wferr.UnsupportedSchema, "schema")
}

// oneShot is a provider without conversations; forgetful keeps them but
// cannot hold its children to a depth limit; breaking fails every turn.
type oneShot struct{ name string }

func (p oneShot) Name() string                        { return p.name }
func (p oneShot) Capabilities() agentapi.Capabilities { return agentapi.Capabilities{} }
func (p oneShot) Run(context.Context, agentapi.Request) (agentapi.Result, error) {
	return agentapi.Result{Status: agentapi.StatusCompleted}, nil
}

type forgetful struct{ oneShot }

func (forgetful) Converse(context.Context, agentapi.ConversationRequest) (agentapi.Conversation, error) {
	return nil, errors.New("unreachable")
}

type breaking struct{ oneShot }

func (breaking) Capabilities() agentapi.Capabilities { return agentapi.Capabilities{DepthLimit: true} }
func (breaking) Converse(context.Context, agentapi.ConversationRequest) (agentapi.Conversation, error) {
	return brokenConversation{}, nil
}

type brokenConversation struct{}

func (brokenConversation) Turn(context.Context, string) (agentapi.Result, error) {
	return agentapi.Result{}, errors.New("the endpoint refused the credentials")
}
func (brokenConversation) Snapshot() (json.RawMessage, error)             { return json.RawMessage(`{}`), nil }
func (brokenConversation) Close(context.Context, bool) *agentapi.Worktree { return nil }

func TestProvidersThatCannotKeepAChildAreRefusedAndABrokenOneFailsIt(t *testing.T) {
	h := newHost(t, t.TempDir(), subagent.Options{}, oneShot{"once"}, forgetful{oneShot{"forgetful"}}, breaking{oneShot{"breaking"}})
	_, err := h.m.Start(t.Context(), me, subagent.StartRequest{Prompt: "x", Provider: "once"})
	wantCode(t, err, wferr.UnsupportedOption, "cannot run continuable sub-agents: its children do not outlive one answer")
	_, err = h.m.Start(t.Context(), me, subagent.StartRequest{Prompt: "x", Provider: "forgetful"})
	wantCode(t, err, wferr.UnsupportedOption, "depthLimit is false")
	_, err = h.m.Start(t.Context(), me, subagent.StartRequest{Prompt: "x", Provider: "nowhere"})
	wantCode(t, err, wferr.InvalidRequest, "not registered")

	e, err := h.m.Start(t.Context(), me, subagent.StartRequest{Prompt: "x", Provider: "breaking"})
	if err != nil {
		t.Fatal(err)
	}
	r := result(t, h, me, e.ChildID, 0)
	if r.Status != ledger.TurnFailed || !strings.Contains(r.Error, "refused the credentials") {
		t.Fatalf("the broken turn: %+v", r)
	}
	until(t, "the child fails", func() bool { got, _ := h.m.Get(me, e.ChildID); return got.Status == ledger.SubagentFailed })
}

func TestTheLimitsOfChildrenAndOfAnInbox(t *testing.T) {
	h := newHost(t, t.TempDir(), subagent.Options{MaxChildren: 2, MaxQueued: 2})
	a := start(t, h, me, "linger here")
	start(t, h, me, "second")
	_, err := h.m.Start(t.Context(), me, subagent.StartRequest{Prompt: "third"})
	wantCode(t, err, wferr.ResourceLimit, "subagent_close")
	until(t, "the first turn runs", func() bool { return runningTurn(t, h, a.ChildID) == 1 })
	send(t, h, me, a.ChildID, "one")
	send(t, h, me, a.ChildID, "two")
	_, err = h.m.Send(t.Context(), me, a.ChildID, "three")
	wantCode(t, err, wferr.ResourceLimit, "the most its inbox holds")
	if _, err := h.m.CloseChild(t.Context(), me, a.ChildID, "done with it"); err != nil {
		t.Fatal(err)
	}
	start(t, h, me, "a closed child makes room")
}

func TestAManagerNeedsAnEngineThatKeepsRuns(t *testing.T) {
	eng, err := engine.New(engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(context.Background())
	_, err = subagent.New(eng, subagent.Options{})
	wantCode(t, err, wferr.InvalidRequest, "RunsDir")
}

func TestAChildLoadedByAnotherLiveProcessIsNotTakenFromIt(t *testing.T) {
	dir := t.TempDir()
	first := newHost(t, dir, subagent.Options{})
	e := start(t, first, me, "research A")
	result(t, first, me, e.ChildID, 0)
	second := newHost(t, dir, subagent.Options{}) // another server on the same ledger
	_, err := second.m.Send(t.Context(), me, e.ChildID, "mine now")
	wantCode(t, err, wferr.InvalidRequest, "is loaded by another wfrun process")
	if list, _ := second.m.List(me, subagent.ScopeChildren); len(list) != 1 || list[0].Status != ledger.SubagentIdle {
		t.Fatalf("the other server's list: %+v", list)
	}
	first.close(t) // the first server lets its children go
	send(t, second, me, e.ChildID, "mine now")
	if r := result(t, second, me, e.ChildID, 2); r.Text != "mine now" {
		t.Fatalf("the handed-over turn: %+v", r)
	}
	want := []string{"user:research A", "assistant:research A", "user:mine now", "assistant:mine now"}
	if got := history(t, second, e.ChildID); !slices.Equal(got, want) {
		t.Fatalf("history %q", got)
	}
}
