package acp

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/internal/proc/proctest"
	"github.com/wfrun/wfrun/agentapi/workspace"
	"github.com/wfrun/wfrun/internal/wferr"
)

// fixture is a provider over the test agent in a fresh workspace, which
// records the process groups it started.
type fixture struct {
	p    *Provider
	ws   *workspace.Workspace
	mu   sync.Mutex
	pgid []int
}

// newFixture makes a workspace holding notes.md (a git repository when
// git is true) in mode and a provider for the test agent with args.
func newFixture(t *testing.T, mode workspace.Mode, git bool, agent Agent) *fixture {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.md"), []byte("first line\nsecond line\nthird line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if git {
		for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"},
			{"-c", "user.name=t", "-c", "user.email=t@wfrun.invalid", "commit", "-q", "-m", "start"}} {
			cmd := exec.Command("git", args...)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
	}
	ws, err := workspace.New(workspace.Config{Root: dir, Mode: mode})
	if err != nil {
		t.Fatal(err)
	}
	if agent.Command == "" {
		agent.Command = testAgent
	}
	p, err := New(Config{Name: "test", Agent: agent, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{p: p, ws: ws}
	p.started = func(g int) {
		f.mu.Lock()
		f.pgid = append(f.pgid, g)
		f.mu.Unlock()
	}
	return f
}

// run runs one child and checks that every process it started is gone.
func (f *fixture) run(t *testing.T, ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
	t.Helper()
	if req.AgentID == "" {
		req.AgentID = "ag_t_1"
	}
	res, err := f.p.Run(ctx, req)
	f.mu.Lock()
	groups := append([]int(nil), f.pgid...)
	f.mu.Unlock()
	for _, g := range groups {
		proctest.AssertGroupGone(t, g)
	}
	return res, err
}

// complete runs a text child that must complete and returns its answer.
func (f *fixture) complete(t *testing.T, prompt string) agentapi.Result {
	t.Helper()
	res, err := f.run(t, context.Background(), agentapi.Request{Prompt: prompt})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != agentapi.StatusCompleted {
		t.Fatalf("the child did not complete: %+v", res)
	}
	return res
}

func (f *fixture) path(rel string) string { return filepath.Join(f.ws.Root(), rel) }

func TestAChildAnswersWithTheAgentsFinalMessage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, false, Agent{})
	res := f.complete(t, "@say Let me look at the notes.\n@tool read "+f.path("notes.md")+"\n@say The notes have\\nthree lines.")
	if res.Text != "The notes have\nthree lines." {
		t.Fatalf("answer %q: the final message is the text after the last tool call", res.Text)
	}
	if len(f.pgid) != 1 {
		t.Fatalf("%d agent processes for one child", len(f.pgid))
	}
	if !strings.Contains(res.Note, "tokens are estimated") || res.Usage.InputTokens == 0 || res.Usage.OutputTokens == 0 {
		t.Fatalf("an agent that reports no usage gets an estimate with a note: %+v", res)
	}
}

func TestUsageAndCostAreTakenFromTheAgent(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, false, Agent{})
	res := f.complete(t, "@cost 0.25\n@usage 120 30 5\n@say done")
	want := agentapi.Usage{InputTokens: 120, OutputTokens: 30, CachedTokens: 5, CostUSD: 0.25}
	if res.Usage != want || res.Note != "" {
		t.Fatalf("usage %+v note %q, want %+v and no note", res.Usage, res.Note, want)
	}
}

func TestAnEmptyFinalMessageFailsTheChild(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, false, Agent{})
	res, err := f.run(t, context.Background(), agentapi.Request{Prompt: "@say I will edit.\n@tool edit " + f.path("notes.md")})
	if err != nil || res.Status != agentapi.StatusFailed || res.Failure != agentapi.FailureTaskFailed || !strings.Contains(res.Error, "without a final message") {
		t.Fatalf("result %+v, err %v", res, err)
	}
}

func TestStopReasonsDecideTheOutcome(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, false, Agent{})
	cases := []struct {
		reason  string
		status  agentapi.Status
		failure agentapi.FailureKind
		text    string // in the error or the note
	}{
		{"end_turn", agentapi.StatusCompleted, "", ""},
		{"max_tokens", agentapi.StatusCompleted, "", "cut off"},
		{"max_turn_requests", agentapi.StatusFailed, agentapi.FailureMaxTurns, "max_turn_requests"},
		{"refusal", agentapi.StatusFailed, agentapi.FailureTaskFailed, "refused the task"},
		{"cancelled", agentapi.StatusFailed, agentapi.FailureTaskFailed, "did not cancel it"},
	}
	for _, c := range cases {
		t.Run(c.reason, func(t *testing.T) {
			res, err := f.run(t, context.Background(), agentapi.Request{Prompt: "@say partial\n@usage 1 1\n@stop " + c.reason})
			if err != nil || res.Status != c.status || res.Failure != c.failure || !strings.Contains(res.Error+res.Note, c.text) {
				t.Fatalf("result %+v, err %v", res, err)
			}
		})
	}
}

var numberSchema = json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)

func TestASchemaAnswerIsValidatedAndCorrectedOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, false, Agent{})
	res, err := f.run(t, context.Background(), agentapi.Request{Schema: numberSchema,
		Prompt: "@say ```json\\n{\"n\": \"three\"}\\n```\n[2]@usage 10 2\n[2]@say {\"n\": 3}"})
	if err != nil || res.Status != agentapi.StatusCompleted || string(res.Output) != `{"n":3}` {
		t.Fatalf("result %+v, err %v", res, err)
	}
	if !strings.Contains(res.Note, "corrected") {
		t.Fatalf("note %q: a corrected answer says so", res.Note)
	}
}

func TestASchemaAnswerWrongTwiceIsInvalidOutput(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, false, Agent{})
	// The second answer is the correction prompt itself, which shows that
	// the agent was told what was wrong and given the schema again.
	res, err := f.run(t, context.Background(), agentapi.Request{Schema: numberSchema,
		Prompt: "@say no JSON here\n[2]@echo\n[2]@report"})
	if err != nil || res.Status != agentapi.StatusFailed || res.Failure != agentapi.FailureInvalidOutput {
		t.Fatalf("result %+v, err %v", res, err)
	}
	for _, want := range []string{"prompt Your answer does not satisfy the JSON Schema", "not valid JSON", "Answer again"} {
		if !strings.Contains(res.Error, want) {
			t.Fatalf("error %q lacks %q", res.Error, want)
		}
	}
}

// waitFor polls for a file the test agent writes.
func waitFor(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestACancelledChildSendsSessionCancelAndEndsTheAgent(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, false, Agent{})
	marker := filepath.Join(t.TempDir(), "cancel")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		waitFor(t, marker+".waiting")
		cancel()
	}()
	res, err := f.run(t, ctx, agentapi.Request{Prompt: "@say working\n@wait " + marker})
	if err != nil || res.Status != agentapi.StatusCancelled || res.Failure != agentapi.FailureCancelled ||
		!strings.Contains(res.Error, "after session/cancel") {
		t.Fatalf("result %+v, err %v", res, err)
	}
	if data, err := os.ReadFile(marker); err != nil || string(data) != "cancelled" {
		t.Fatalf("the agent did not see session/cancel: %q %v", data, err)
	}
}

func TestAnAgentThatIgnoresTheCancelIsKilledAfterTheGrace(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, false, Agent{KillGrace: 100 * time.Millisecond})
	marker := filepath.Join(t.TempDir(), "hang")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		waitFor(t, marker+".waiting")
		cancel()
	}()
	res, err := f.run(t, ctx, agentapi.Request{Prompt: "@hang " + marker})
	if err != nil || res.Status != agentapi.StatusCancelled || !strings.Contains(res.Error, "was killed") {
		t.Fatalf("result %+v, err %v", res, err)
	}
}

func TestADeadlineEndsTheChildAsTimedOut(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, false, Agent{})
	marker := filepath.Join(t.TempDir(), "deadline")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	res, err := f.run(t, ctx, agentapi.Request{Prompt: "@wait " + marker})
	if err != nil || res.Status != agentapi.StatusTimedOut || res.Failure != agentapi.FailureTimeout {
		t.Fatalf("result %+v, err %v", res, err)
	}
}

func TestAChildCancelledBeforeItStartsStartsNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, false, Agent{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := f.run(t, ctx, agentapi.Request{Prompt: "@say never"})
	if err != nil || res.Status != agentapi.StatusCancelled || len(f.pgid) != 0 {
		t.Fatalf("result %+v, err %v, %d processes", res, err, len(f.pgid))
	}
}

func TestAnAgentThatDiesDuringItsTurnFailsTheChild(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, false, Agent{})
	res, err := f.run(t, context.Background(), agentapi.Request{Prompt: "@say about to crash\n@crash out of memory, sort of"})
	if err != nil || res.Status != agentapi.StatusFailed || res.Failure != agentapi.FailureTaskFailed ||
		!strings.Contains(res.Error, "exited with status 3") || !strings.Contains(res.Error, "stderr: out of memory, sort of") {
		t.Fatalf("result %+v, err %v", res, err)
	}
}

func TestAnAgentThatCannotBeUsedIsAnAgentStartError(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		agent Agent
		want  string
	}{
		{"missing program", Agent{Command: "/nonexistent/acp-agent"}, "cannot find the agent's program"},
		{"not ACP", Agent{Args: []string{"-garbage"}}, "closed the connection before it answered initialize (it exited with status 2)"},
		{"wants a login", Agent{Args: []string{"-auth"}}, "needs authentication"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, workspace.WorkspaceWrite, false, c.agent)
			_, err := f.run(t, context.Background(), agentapi.Request{Prompt: "@say hi"})
			if wferr.CodeOf(err) != wferr.AgentStart || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want AGENT_START with %q", err, c.want)
			}
		})
	}
}

func TestIsolationMustBeWorktree(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, false, Agent{})
	_, err := f.run(t, context.Background(), agentapi.Request{Prompt: "@say hi", Isolation: "container"})
	if wferr.CodeOf(err) != wferr.UnsupportedOption {
		t.Fatalf("error %v", err)
	}
}

func TestAnIsolatedChildWorksInAGitWorktreeOfItsOwn(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, true, Agent{})
	res, err := f.run(t, context.Background(), agentapi.Request{AgentID: "ag_iso_1", Isolation: IsolationWorktree,
		Prompt: "@cwd\n@write notes.md changed in isolation\n@report"})
	if err != nil || res.Status != agentapi.StatusCompleted || res.Worktree == nil {
		t.Fatalf("result %+v, err %v: an isolated child with changes reports its worktree", res, err)
	}
	wt := res.Worktree
	if wt.Branch != "wfrun/ag_iso_1" || wt.Path != filepath.Join(f.ws.Root(), ".wfrun", "worktrees", "ag_iso_1") {
		t.Fatalf("worktree %+v", wt)
	}
	if want := "cwd " + wt.Path + "; write notes.md: ok"; res.Text != want {
		t.Fatalf("answer %q, want %q: the session's cwd is the worktree, and fs requests are served there", res.Text, want)
	}
	if data, _ := os.ReadFile(filepath.Join(wt.Path, "notes.md")); string(data) != "changed in isolation" {
		t.Fatalf("the worktree holds %q", data)
	}
	if data, _ := os.ReadFile(f.path("notes.md")); !strings.HasPrefix(string(data), "first line") {
		t.Fatalf("the isolated child changed the workspace itself: %q", data)
	}

	// A child that changes nothing leaves no worktree behind.
	res, err = f.run(t, context.Background(), agentapi.Request{AgentID: "ag_iso_2", Isolation: IsolationWorktree, Prompt: "@say looked only"})
	if err != nil || res.Worktree != nil {
		t.Fatalf("result %+v, err %v: an unchanged worktree was kept", res, err)
	}
	if _, err := os.Stat(filepath.Join(f.ws.Root(), ".wfrun", "worktrees", "ag_iso_2")); !os.IsNotExist(err) {
		t.Fatalf("the unchanged worktree is still on disk: %v", err)
	}
}

func TestIsolationOutsideAGitRepositoryIsAnAgentStartError(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, false, Agent{})
	_, err := f.run(t, context.Background(), agentapi.Request{Prompt: "@say hi", Isolation: IsolationWorktree})
	if wferr.CodeOf(err) != wferr.AgentStart || !strings.Contains(err.Error(), "git") || len(f.pgid) != 0 {
		t.Fatalf("error %v, %d processes", err, len(f.pgid))
	}
}

func TestCapabilitiesAreWhatACPAndTheConfigurationGive(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, false, Agent{})
	if got, want := f.p.Capabilities(), (agentapi.Capabilities{OutputSchema: true, Isolation: true}); got != want {
		t.Fatalf("capabilities %+v, want %+v", got, want)
	}
	f = newFixture(t, workspace.WorkspaceWrite, false, Agent{Capabilities: agentapi.Capabilities{Model: true, DepthLimit: true}})
	if got, want := f.p.Capabilities(), (agentapi.Capabilities{OutputSchema: true, Isolation: true, Model: true, DepthLimit: true}); got != want {
		t.Fatalf("capabilities %+v, want %+v", got, want)
	}
	if f.p.Name() != "acp:test" {
		t.Fatalf("name %q", f.p.Name())
	}
}

func TestTheAgentGetsAMinimalEnvironmentThenPassEnvThenTheWorkspacesThenEnv(t *testing.T) {
	t.Setenv("WFRUN_ACP_PASSED", "given")
	t.Setenv("WFRUN_ACP_SECRET", "kept")
	for _, c := range []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"the workspace's git settings reach the agent", map[string]string{"STYLE": "terse"},
			[]string{"WFRUN_ACP_PASSED=given", "STYLE=terse", "GIT_OPTIONAL_LOCKS=0"}},
		{"env wins over the workspace", map[string]string{"GIT_OPTIONAL_LOCKS": "1", "WFRUN_ACP_PASSED": "set"},
			[]string{"WFRUN_ACP_PASSED=set", "GIT_OPTIONAL_LOCKS=1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			envFile := filepath.Join(t.TempDir(), "env")
			// The agent is a shell that records its environment and becomes
			// the test agent.
			f := newFixture(t, workspace.ReadOnly, false, Agent{Command: "/bin/sh",
				Args:    []string{"-c", `env > "$0" && exec "$1"`, envFile, testAgent},
				PassEnv: []string{"WFRUN_ACP_PASSED"}, Env: c.env})
			f.complete(t, "@say done")
			data, err := os.ReadFile(envFile)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Split(strings.TrimSpace(string(data)), "\n")
			for _, want := range c.want {
				if !slices.Contains(got, want) {
					t.Errorf("%s is missing from the agent's environment %q", want, got)
				}
			}
			if slices.ContainsFunc(got, func(kv string) bool { return strings.HasPrefix(kv, "WFRUN_ACP_SECRET=") }) {
				t.Errorf("a variable neither inherited nor passed reached the agent: %q", got)
			}
		})
	}
}
