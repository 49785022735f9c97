package command

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/internal/proc"
	"github.com/wfrun/wfrun/agentapi/internal/proc/proctest"
	"github.com/wfrun/wfrun/internal/testkit/loadbound"
	"github.com/wfrun/wfrun/internal/wferr"
)

const answerSchema = `{"type":"object","properties":{"answer":{"type":"integer"}},"required":["answer"]}`

// script returns the absolute path of a test script.
func script(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// newProvider builds a provider and records the process group of every
// child it starts; when the test ends, every one of them must be gone.
func newProvider(t *testing.T, s Spec) (*Provider, func() []int) {
	t.Helper()
	p, err := New(s)
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu     sync.Mutex
		groups []int
	)
	p.started = func(pgid int) {
		mu.Lock()
		groups = append(groups, pgid)
		mu.Unlock()
	}
	list := func() []int {
		mu.Lock()
		defer mu.Unlock()
		return append([]int(nil), groups...)
	}
	t.Cleanup(func() {
		for _, g := range list() {
			proctest.AssertGroupGone(t, g)
		}
	})
	return p, list
}

func run(t *testing.T, p *Provider, ctx context.Context, req agentapi.Request) agentapi.Result {
	t.Helper()
	res, err := p.Run(ctx, req)
	if err != nil {
		t.Fatalf("Run returned an error: %v", err)
	}
	return res
}

func TestPromptViaStdinIsTheAnswer(t *testing.T) {
	t.Parallel()
	p, groups := newProvider(t, Spec{Argv: []string{script(t, "cat.sh")}})
	prompt := "Summarise the report.\nIt has two lines, 'quotes', \"doubles\" and $HOME."
	res := run(t, p, context.Background(), agentapi.Request{Prompt: prompt + "\n\n"})
	if res.Status != agentapi.StatusCompleted || res.Text != prompt {
		t.Fatalf("got %+v, want completed with the prompt", res)
	}
	if want := tokens(len(prompt) + 2); res.Usage.InputTokens != want || res.Usage.OutputTokens != tokens(len(prompt)) || res.Usage.CostUSD != 0 {
		t.Fatalf("usage %+v, want estimates (input %d)", res.Usage, want)
	}
	if len(groups()) != 1 {
		t.Fatalf("started %d processes, want 1", len(groups()))
	}
}

func TestPromptAsArgumentWithModel(t *testing.T) {
	t.Parallel()
	p, _ := newProvider(t, Spec{
		Argv:         []string{script(t, "args.sh"), "-p", "{prompt}", "--model={model}", "{literal}"},
		PromptVia:    PromptViaArg,
		Model:        "default-model",
		Capabilities: agentapi.Capabilities{Model: true},
	})
	res := run(t, p, context.Background(), agentapi.Request{Prompt: "say {model} $(id); echo hi"})
	want := "[-p]\n[say {model} $(id); echo hi]\n[--model=default-model]\n[{literal}]"
	if res.Status != agentapi.StatusCompleted || res.Text != want {
		t.Fatalf("got %+v\nwant text %q", res, want)
	}
	res = run(t, p, context.Background(), agentapi.Request{Prompt: "x", Model: "big"})
	if !strings.Contains(res.Text, "[--model=big]") {
		t.Fatalf("the request's model was not used: %q", res.Text)
	}
}

func TestJSONOutputFieldAndUsage(t *testing.T) {
	t.Parallel()
	spec := Spec{
		Argv: []string{script(t, "json.sh")},
		Env:  map[string]string{"ANSWER_JSON": `"The answer is 42."`},
		Output: Output{Format: FormatJSON, Field: "result", UsageFields: UsageFields{
			InputTokens: "usage.input_tokens", OutputTokens: "usage.output_tokens",
			CachedTokens: "usage.cache_read_input_tokens", CostUSD: "total_cost_usd"}},
	}
	p, _ := newProvider(t, spec)
	res := run(t, p, context.Background(), agentapi.Request{Prompt: "What is the answer?"})
	want := agentapi.Usage{InputTokens: 120, OutputTokens: 34, CachedTokens: 7, CostUSD: 0.25}
	if res.Status != agentapi.StatusCompleted || res.Text != "The answer is 42." || res.Usage != want || res.Note != "" {
		t.Fatalf("got %+v, want the result field and usage %+v", res, want)
	}

	spec.Output = Output{Format: FormatJSON, Field: "turns.1.n", UsageFields: UsageFields{InputTokens: "usage.missing"}}
	p, _ = newProvider(t, spec)
	res = run(t, p, context.Background(), agentapi.Request{Prompt: "abcdefgh"})
	if res.Status != agentapi.StatusCompleted || res.Text != "2" || res.Usage.InputTokens != 2 ||
		!strings.Contains(res.Note, "usage.missing") {
		t.Fatalf("got %+v, want text 2, an estimated input and a note naming the missing path", res)
	}

	spec.Output = Output{Format: FormatJSON, Field: "answer"}
	p, _ = newProvider(t, spec)
	res = run(t, p, context.Background(), agentapi.Request{Prompt: "x"})
	if res.Status != agentapi.StatusFailed || res.Failure != agentapi.FailureTaskFailed || !strings.Contains(res.Error, `no "answer" field`) {
		t.Fatalf("got %+v, want a failure naming the missing field", res)
	}
}

func TestSchemaAnswers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, answer string
		status       agentapi.Status
		failure      agentapi.FailureKind
		output, err  string
	}{
		{"valid", `{"answer": 42}`, agentapi.StatusCompleted, "", `{"answer":42}`, ""},
		{"valid in a code fence", "```json\n{\"answer\": 7}\n```", agentapi.StatusCompleted, "", `{"answer":7}`, ""},
		{"wrong type", `{"answer": "forty-two"}`, agentapi.StatusFailed, agentapi.FailureInvalidOutput, "", "/answer"},
		{"not JSON", `The answer is 42.`, agentapi.StatusFailed, agentapi.FailureInvalidOutput, "", "not valid JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p, _ := newProvider(t, Spec{
				Argv:         []string{script(t, "schema.sh")},
				Env:          map[string]string{"ANSWER": c.answer},
				Capabilities: agentapi.Capabilities{OutputSchema: true},
			})
			res := run(t, p, context.Background(), agentapi.Request{Prompt: "What is six times seven?", Schema: []byte(answerSchema)})
			if res.Status != c.status || res.Failure != c.failure || string(res.Output) != c.output || !strings.Contains(res.Error, c.err) {
				t.Fatalf("got %+v (output %s), want %s %s %s %q", res, res.Output, c.status, c.failure, c.output, c.err)
			}
		})
	}
}

func TestSchemaCallNeedsTheCapability(t *testing.T) {
	t.Parallel()
	p, _ := newProvider(t, Spec{Argv: []string{script(t, "cat.sh")}})
	_, err := p.Run(context.Background(), agentapi.Request{Prompt: "x", Schema: []byte(answerSchema)})
	if wferr.CodeOf(err) != wferr.AgentStart || !strings.Contains(err.Error(), "outputSchema") {
		t.Fatalf("err %v, want AGENT_START naming outputSchema", err)
	}
}

func TestNonZeroExitFailsWithStderrTail(t *testing.T) {
	t.Parallel()
	p, _ := newProvider(t, Spec{Argv: []string{script(t, "fail.sh")}})
	res := run(t, p, context.Background(), agentapi.Request{Prompt: "do it"})
	if res.Status != agentapi.StatusFailed || res.Failure != agentapi.FailureTaskFailed {
		t.Fatalf("got %+v, want failed task_failed", res)
	}
	if !strings.Contains(res.Error, "exited with status 3") || !strings.HasSuffix(res.Error, "error: the real reason is at the end") {
		t.Fatalf("error %q lacks the status or the end of stderr", res.Error)
	}
	if strings.Contains(res.Error, "noise line 0 ") || len(res.Error) > proc.StderrTail+300 {
		t.Fatalf("error keeps more than the tail of stderr (%d bytes)", len(res.Error))
	}
}

func TestCancelKillsAGroupThatIgnoresSIGTERM(t *testing.T) {
	t.Parallel()
	ready := filepath.Join(t.TempDir(), "ready")
	const grace = 500 * time.Millisecond
	p, groups := newProvider(t, Spec{
		Argv:      []string{script(t, "ignore_term.sh")},
		Env:       map[string]string{"READY_FILE": ready},
		KillGrace: grace,
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		res  agentapi.Result
		done = make(chan struct{})
	)
	go func() {
		defer close(done)
		res = run(t, p, ctx, agentapi.Request{Prompt: "never mind"})
	}()
	waitForFile(t, ready)
	timer := loadbound.Start(t)
	cancel()
	<-done
	took := timer.Stop()
	if res.Status != agentapi.StatusCancelled || res.Failure != agentapi.FailureCancelled || !strings.Contains(res.Error, "SIGKILL") {
		t.Fatalf("got %+v, want cancelled after SIGKILL", res)
	}
	if took.Wall < grace || took.Over(grace+time.Second) {
		t.Fatalf("Run returned %v after the cancel, want between the grace %s and grace+1s (%v on a machine this loaded)", took, grace, took.Bound(grace+time.Second))
	}
	for _, g := range groups() {
		proctest.AssertGroupGone(t, g) // the background sleep included
	}
}

func waitForFile(t *testing.T, path string) {
	t.Helper()
	// Generous: the file appears as soon as the command runs, which a
	// loaded machine may take seconds to do.
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
	t.Fatalf("%s never appeared", path)
}

func TestFloodingStdoutFailsAndIsKilled(t *testing.T) {
	t.Parallel()
	p, _ := newProvider(t, Spec{Argv: []string{script(t, "flood.sh")}, KillGrace: 200 * time.Millisecond})
	timer := loadbound.Start(t)
	res := run(t, p, context.Background(), agentapi.Request{Prompt: "be brief"})
	if res.Status != agentapi.StatusFailed || res.Failure != agentapi.FailureTaskFailed ||
		!strings.Contains(res.Error, "more than 4194304 bytes") || !strings.Contains(res.Error, "maxOutputBytes") {
		t.Fatalf("got %+v, want the output-cap failure", res)
	}
	if took := timer.Stop(); took.Over(5 * time.Second) {
		t.Fatalf("the flood took %v to stop", took)
	}
}

func TestSmallOutputCap(t *testing.T) {
	t.Parallel()
	p, _ := newProvider(t, Spec{Argv: []string{script(t, "cat.sh")}, MaxOutputBytes: 10})
	if res := run(t, p, context.Background(), agentapi.Request{Prompt: "0123456789"}); res.Status != agentapi.StatusCompleted {
		t.Fatalf("10 bytes under a 10-byte cap: %+v", res)
	}
	if res := run(t, p, context.Background(), agentapi.Request{Prompt: "0123456789!"}); res.Status != agentapi.StatusFailed || !strings.Contains(res.Error, "more than 10 bytes") {
		t.Fatalf("11 bytes under a 10-byte cap: %+v", res)
	}
}

func TestTimeouts(t *testing.T) {
	t.Parallel()
	t.Run("the spec's timeout", func(t *testing.T) {
		t.Parallel()
		p, _ := newProvider(t, Spec{Argv: []string{script(t, "sleep.sh")}, Timeout: 200 * time.Millisecond})
		timer := loadbound.Start(t)
		res := run(t, p, context.Background(), agentapi.Request{Prompt: "x"})
		if res.Status != agentapi.StatusTimedOut || res.Failure != agentapi.FailureTimeout || !strings.Contains(res.Error, "timeout of 200ms") {
			t.Fatalf("got %+v, want timed_out naming the spec's timeout", res)
		}
		if took := timer.Stop(); took.Over(2 * time.Second) {
			t.Fatalf("took %v; sleep obeys SIGTERM, so it should stop at once", took)
		}
	})
	t.Run("the context's deadline", func(t *testing.T) {
		t.Parallel()
		p, _ := newProvider(t, Spec{Argv: []string{script(t, "sleep.sh")}})
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		res := run(t, p, ctx, agentapi.Request{Prompt: "x"})
		if res.Status != agentapi.StatusTimedOut || res.Failure != agentapi.FailureTimeout || !strings.Contains(res.Error, "deadline") {
			t.Fatalf("got %+v, want timed_out", res)
		}
	})
	t.Run("a context already done starts nothing", func(t *testing.T) {
		t.Parallel()
		p, groups := newProvider(t, Spec{Argv: []string{script(t, "sleep.sh")}})
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if res := run(t, p, ctx, agentapi.Request{Prompt: "x"}); res.Status != agentapi.StatusCancelled {
			t.Fatalf("got %+v, want cancelled", res)
		}
		if len(groups()) != 0 {
			t.Fatal("a process was started")
		}
	})
}

func TestMissingExecutableIsAnAgentStartError(t *testing.T) {
	t.Parallel()
	cases := []struct{ argv0, want string }{
		{"wfrun-no-such-agent-cli", `cannot find the command "wfrun-no-such-agent-cli" in PATH: install it`},
		{"./no/such/agent", `cannot find the command "./no/such/agent" (no such file)`},
		{"testdata/not_executable.txt", `cannot run the command "testdata/not_executable.txt"`},
	}
	for _, c := range cases {
		p, groups := newProvider(t, Spec{Argv: []string{c.argv0}})
		res, err := p.Run(context.Background(), agentapi.Request{Prompt: "x"})
		var we *wferr.Error
		if !errors.As(err, &we) || we.Code != wferr.AgentStart || !strings.Contains(we.Message, c.want) || !strings.Contains(we.Message, `"argv"`) {
			t.Fatalf("%s: got %+v, %v; want AGENT_START containing %q", c.argv0, res, err, c.want)
		}
		if len(groups()) != 0 {
			t.Fatalf("%s: a process was started", c.argv0)
		}
	}
}

func TestMissingDirIsAnAgentStartError(t *testing.T) {
	t.Parallel()
	p, _ := newProvider(t, Spec{Argv: []string{"/bin/sh", "-c", "true"}, Dir: filepath.Join(t.TempDir(), "gone")})
	_, err := p.Run(context.Background(), agentapi.Request{Prompt: "x"})
	if wferr.CodeOf(err) != wferr.AgentStart || !strings.Contains(err.Error(), `"dir"`) {
		t.Fatalf("err %v, want AGENT_START naming dir", err)
	}
}

func TestEnvironmentIsMinimal(t *testing.T) {
	t.Setenv("WFRUN_CMD_SECRET", "leaked")
	t.Setenv("WFRUN_CMD_PASSED", "passed")
	dir := t.TempDir()
	p, _ := newProvider(t, Spec{
		Argv:    []string{script(t, "env.sh")},
		Env:     map[string]string{"WFRUN_CMD_ADDED": "added"},
		PassEnv: []string{"WFRUN_CMD_PASSED"},
		Dir:     dir,
	})
	res := run(t, p, context.Background(), agentapi.Request{Prompt: "x"})
	real, _ := filepath.EvalSymlinks(dir)
	want := "secret= passed=passed added=added home=set dir="
	if res.Status != agentapi.StatusCompleted || !strings.HasPrefix(res.Text, want) ||
		(res.Text != want+dir && res.Text != want+real) {
		t.Fatalf("got %q, want %q+%s", res.Text, want, dir)
	}
}

func TestAChildGetsTheTraceContextOfItsSpanInTRACEPARENT(t *testing.T) {
	t.Parallel()
	p, _ := newProvider(t, Spec{
		Argv: []string{"/bin/sh", "-c", `printf '%s|%s' "$TRACEPARENT" "$TRACESTATE"`},
		Env:  map[string]string{"TRACEPARENT": "00-11111111111111111111111111111111-2222222222222222-01"},
	})
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, SpanID: trace.SpanID{1, 2, 3, 4, 5, 6, 7, 8},
		TraceFlags: trace.FlagsSampled,
	})
	state, _ := trace.ParseTraceState("wfrun=1")
	ctx := trace.ContextWithSpanContext(context.Background(), sc.WithTraceState(state))
	res := run(t, p, ctx, agentapi.Request{Prompt: "x"})
	if want := "00-0102030405060708090a0b0c0d0e0f10-0102030405060708-01|wfrun=1"; res.Text != want {
		t.Errorf("the child saw %q, want %q: the span's context replaces the spec's TRACEPARENT", res.Text, want)
	}
	// Without a span the environment is the spec's.
	if res := run(t, p, context.Background(), agentapi.Request{Prompt: "x"}); res.Text != "00-11111111111111111111111111111111-2222222222222222-01|" {
		t.Errorf("without a span the child saw %q", res.Text)
	}
}

func TestConcurrentChildren(t *testing.T) {
	t.Parallel()
	p, groups := newProvider(t, Spec{Argv: []string{script(t, "cat.sh")}})
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			want := "child " + strconv.Itoa(i)
			res, err := p.Run(context.Background(), agentapi.Request{Prompt: want})
			if err != nil || res.Text != want {
				t.Errorf("child %d: %+v, %v", i, res, err)
			}
		})
	}
	wg.Wait()
	if len(groups()) != 16 {
		t.Fatalf("started %d groups, want 16", len(groups()))
	}
}

func TestBackgroundChildrenDieWithTheCommand(t *testing.T) {
	t.Parallel()
	p, groups := newProvider(t, Spec{Argv: []string{script(t, "background.sh")}})
	timer := loadbound.Start(t)
	res := run(t, p, context.Background(), agentapi.Request{Prompt: "x"})
	if res.Status != agentapi.StatusCompleted || res.Text != "done" {
		t.Fatalf("got %+v, want completed done", res)
	}
	// A child left alive holds stdout open until DrainTimeout.
	if took := timer.Stop(); took.Over(proc.DrainTimeout) {
		t.Fatalf("took %v: the background child was not killed when the command exited", took)
	}
	for _, g := range groups() {
		proctest.AssertGroupGone(t, g)
	}
}

func TestLargePrompts(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("a prompt larger than any pipe buffer\n", 30000) // ~1 MiB
	t.Run("read and echoed", func(t *testing.T) {
		t.Parallel()
		p, _ := newProvider(t, Spec{Argv: []string{script(t, "cat.sh")}})
		if res := run(t, p, context.Background(), agentapi.Request{Prompt: big}); res.Text != strings.TrimSpace(big) {
			t.Fatalf("got %d bytes back, want %d", len(res.Text), len(strings.TrimSpace(big)))
		}
	})
	t.Run("never read", func(t *testing.T) {
		t.Parallel()
		p, _ := newProvider(t, Spec{Argv: []string{"/bin/sh", "-c", "echo ignored"}})
		if res := run(t, p, context.Background(), agentapi.Request{Prompt: big}); res.Status != agentapi.StatusCompleted || res.Text != "ignored" {
			t.Fatalf("got %+v", res)
		}
	})
}

func TestRelativeCommandIsFoundFromDir(t *testing.T) {
	t.Parallel()
	p, _ := newProvider(t, Spec{Argv: []string{"./cat.sh"}, Dir: "testdata"})
	if res := run(t, p, context.Background(), agentapi.Request{Prompt: "from testdata"}); res.Text != "from testdata" {
		t.Fatalf("got %+v", res)
	}
	p, _ = newProvider(t, Spec{Argv: []string{"cat.sh"}, Dir: "testdata", Env: map[string]string{"PATH": ".:/usr/bin:/bin"}})
	if res := run(t, p, context.Background(), agentapi.Request{Prompt: "via PATH"}); res.Text != "via PATH" {
		t.Fatalf("got %+v", res)
	}
}
