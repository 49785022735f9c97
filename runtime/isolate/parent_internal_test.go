package isolate

import (
	"bufio"
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/internal/wferr"
	"github.com/wfrun/wfrun/meta"
	"github.com/wfrun/wfrun/runtime"
	"github.com/wfrun/wfrun/runtime/eventcheck"
	"github.com/wfrun/wfrun/sandbox"
)

// blockingProvider cancels the run (cancel) when its agent starts, then
// answers only when its own context ends: the run ends by cancellation
// while its agent runs, as a run past its folder's budget does.
type blockingProvider struct{ cancel context.CancelCauseFunc }

func (p *blockingProvider) Name() string                        { return "blocking" }
func (p *blockingProvider) Capabilities() agentapi.Capabilities { return agentapi.All() }
func (p *blockingProvider) Run(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
	p.cancel(runtime.CancelledError("enough"))
	<-ctx.Done()
	return agentapi.Result{Status: agentapi.StatusCancelled, Failure: agentapi.FailureCancelled, Error: "cancelled"}, nil
}

// A child that sends its outcome and exits while the parent's loop is not
// waiting (busy sending a cancel, or not yet at its first wait, on a loaded
// machine) leaves both the outcome and the exit ready when the loop next
// waits. The run ends with the outcome the child sent, never with "the
// run's process ended without an outcome". The hook holds the loop until
// the process has been waited for; select then picks either case, so each
// case runs several times: without the fix about half of them fail.
func TestRun_AnOutcomeAndAnExitReadyTogetherEndWithTheOutcome(t *testing.T) {
	const runs = 32
	for _, c := range []struct {
		name   string
		src    string
		cancel bool // the provider cancels the run; the loop sends the cancel and is held on its next turn
		check  func(t *testing.T, out runtime.Outcome)
	}{
		{name: "cancelled while the loop sends the cancel", src: "return await agent('wait')", cancel: true,
			check: func(t *testing.T, out runtime.Outcome) {
				if wferr.CodeOf(out.Err) != wferr.Cancelled || !strings.Contains(out.Err.Message, "enough") || out.Agents.Cancelled != 1 {
					t.Fatalf("%v %+v", out.Err, out.Agents)
				}
			}},
		{name: "ended before the loop first waits", src: "return 1",
			check: func(t *testing.T, out runtime.Outcome) {
				if out.Err != nil || string(out.Value) != "1" {
					t.Fatalf("%s %v", out.Value, out.Err)
				}
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for range runs {
				s, err := sandbox.Parse("script.js", c.src)
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancelCause(context.Background())
				defer cancel(nil)
				rec := &eventcheck.Recorder{}
				cfg := runtime.Config{RunID: "wf_iso", Parent: "t", Script: s, Meta: meta.WorkflowMeta{Name: "t", Description: "d"},
					Provider: fake.New(fake.Options{}), Emit: rec.Record}
				hold := 1 // the turn of the loop that waits for the process to be gone
				if c.cancel {
					cfg.Provider = &blockingProvider{cancel: cancel}
					hold = 2 // the first turn takes the cancel
				}
				turn := 0
				testHookLoop = func(p *parent) {
					if turn++; turn == hold {
						p.wg.Wait() // the process is waited for, and every call has returned
					}
				}
				out := Run(ctx, cfg)
				<-out.Drained
				testHookLoop = nil
				c.check(t, out)
				if err := eventcheck.Check(rec.Events(), eventcheck.Options{}); err != nil {
					t.Fatalf("event invariants: %v", err)
				}
			}
		})
	}
	testHookLoop = nil
}

// A hostile child may send end messages more than once: the first outcome
// is the run's, and the reader goes on draining the pipe instead of
// blocking on the second.
func TestRead_OnlyTheFirstOutcomeCounts(t *testing.T) {
	var buf bytes.Buffer
	w := newWriter(&buf)
	for _, m := range []message{
		{Type: msgEnd},
		{Type: msgEnd, Outcome: &outcomeMsg{Value: []byte(`"first"`)}},
		{Type: msgEnd, Outcome: &outcomeMsg{Value: []byte(`"second"`)}},
		{Type: msgEnd, Outcome: &outcomeMsg{Value: []byte(`"third"`)}},
	} {
		if err := w.send(m); err != nil {
			t.Fatal(err)
		}
	}
	p := &parent{cfg: runtime.WithDefaults(runtime.Config{}), open: map[string]runtime.Event{}, calls: map[int64]context.CancelFunc{}}
	ended := make(chan struct{}, 1)
	p.read(bufio.NewReader(&buf), ended) // returns at the pipe's end
	if len(ended) != 1 || p.end == nil || string(p.end.Value) != `"first"` {
		t.Fatalf("signals %d, outcome %+v", len(ended), p.end)
	}
}
