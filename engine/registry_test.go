package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/runtime/eventcheck"
)

const slowScript = `export const meta = { name: 'slow', description: 'one slow agent', phases: [{ title: 'Wait' }] }
phase('Wait')
log('waiting')
return await agent('slow: take your time')`

func slowEngine(t *testing.T, cfg engine.Config) *engine.Engine {
	t.Helper()
	rules, err := fake.Parse([]byte(`{"rules":[{"match":"^slow","delayMs":30000,"usage":{"inputTokens":7,"outputTokens":3}},{"match":"^quick","usage":{"inputTokens":5,"outputTokens":2}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	cfg.FakeRules = rules
	return newEngine(t, cfg)
}

// startChecked starts req and returns the run, with its events checked
// against the shared invariants once it has settled.
func startChecked(t *testing.T, eng *engine.Engine, req engine.WorkflowStartRequest) (*engine.Run, chan engine.Event) {
	t.Helper()
	rec := &eventcheck.Recorder{}
	seen := make(chan engine.Event, 64)
	req.OnEvent = func(ev engine.Event) {
		rec.Record(ev)
		select {
		case seen <- ev:
		default:
		}
	}
	run, err := eng.Start(context.Background(), req)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() {
		run.Cancel("test over")
		run.Wait()
		if err := eventcheck.Check(rec.Events(), eventcheck.Options{RunEvents: true}); err != nil {
			t.Errorf("event invariants: %v", err)
		}
	})
	return run, seen
}

// waitFor reads events until one of type typ arrives.
func waitFor(t *testing.T, seen chan engine.Event, typ engine.EventType) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case ev := <-seen:
			if ev.Type == typ {
				return
			}
		case <-timeout:
			t.Fatalf("no %s event within 10s", typ)
		}
	}
}

func TestRegistry_RunsAreInvisibleToOtherOwners(t *testing.T) {
	eng := slowEngine(t, engine.Config{})
	run, _ := startChecked(t, eng, engine.WorkflowStartRequest{Script: slowScript, Parent: "alice", Background: true})
	if _, ok := eng.Lookup("alice", run.ID()); !ok {
		t.Fatal("the owner cannot find its own run")
	}
	if _, ok := eng.Lookup("bob", run.ID()); ok {
		t.Fatal("another owner found the run")
	}
	if _, ok := eng.Info("bob", run.ID()); ok {
		t.Fatal("another owner got the run's info")
	}
	if got := eng.Runs("bob"); len(got) != 0 {
		t.Fatalf("another owner lists %+v", got)
	}
	if got := eng.Runs("alice"); len(got) != 1 || got[0].RunID != run.ID() || got[0].Owner != "alice" || !got[0].Background {
		t.Fatalf("the owner lists %+v", got)
	}
}

func TestRegistry_InfoReportsPhaseAgentsTokensAndElapsedWhileRunning(t *testing.T) {
	eng := slowEngine(t, engine.Config{})
	script := `export const meta = { name: 'two', description: 'a quick agent, then a slow one' }
await agent('quick one')
phase('Slow part')
return await agent('slow one')`
	run, seen := startChecked(t, eng, engine.WorkflowStartRequest{Script: script, Parent: "p", Background: true})
	waitFor(t, seen, engine.EventAgentEnd)
	waitFor(t, seen, engine.EventAgentStart)
	in, ok := eng.Info("p", run.ID())
	if !ok {
		t.Fatal("no info")
	}
	if in.Status != engine.RunRunning || in.Phase != "Slow part" || in.Meta.Name != "two" {
		t.Fatalf("info %+v", in)
	}
	if in.Agents != (engine.AgentProgress{Running: 1, Done: 1}) || in.Usage.InputTokens != 5 || in.Usage.OutputTokens != 2 {
		t.Fatalf("progress %+v usage %+v", in.Agents, in.Usage)
	}
	if in.EndedAt != nil || in.ElapsedMs < 0 {
		t.Fatalf("timing %+v", in)
	}
	run.Cancel("seen enough")
	run.Wait()
	in, _ = eng.Info("p", run.ID())
	if in.Status != engine.RunCancelled || in.ErrorCode != engine.CodeCancelled || in.EndedAt == nil || in.Agents.Cancelled != 1 || in.Agents.Failed != 0 || in.Agents.Running != 0 {
		t.Fatalf("after cancel %+v", in)
	}
}

func TestRegistry_BackgroundRunsPastTheOwnersLimitAreRefused(t *testing.T) {
	eng := slowEngine(t, engine.Config{MaxBackgroundRuns: 2})
	first, _ := startChecked(t, eng, engine.WorkflowStartRequest{Script: slowScript, Parent: "p", Background: true})
	startChecked(t, eng, engine.WorkflowStartRequest{Script: slowScript, Parent: "p", Background: true})

	_, err := eng.Start(context.Background(), engine.WorkflowStartRequest{Script: slowScript, Parent: "p", Background: true})
	if engine.CodeOf(err) != engine.CodeResourceLimit || !strings.Contains(err.Error(), "2 background runs") ||
		!strings.Contains(err.Error(), "workflow_cancel") {
		t.Fatalf("third background run: %v", err)
	}
	// The limit is per owner and for background runs only.
	startChecked(t, eng, engine.WorkflowStartRequest{Script: slowScript, Parent: "other", Background: true})
	startChecked(t, eng, engine.WorkflowStartRequest{Script: slowScript, Parent: "p"})

	first.Cancel("make room")
	first.Wait()
	startChecked(t, eng, engine.WorkflowStartRequest{Script: slowScript, Parent: "p", Background: true})
}

func TestRegistry_AForegroundRunWhoseCallerGaveUpIsListedAsCancelled(t *testing.T) {
	eng := slowEngine(t, engine.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	rec := &eventcheck.Recorder{}
	started := make(chan struct{}, 1)
	run, err := eng.Start(ctx, engine.WorkflowStartRequest{Script: slowScript, Parent: "p", OnEvent: func(ev engine.Event) {
		rec.Record(ev)
		if ev.Type == engine.EventAgentStart {
			started <- struct{}{}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	<-started
	cancel()
	run.Wait()
	if err := eventcheck.Check(rec.Events(), eventcheck.Options{RunEvents: true}); err != nil {
		t.Fatal(err)
	}
	list := eng.Runs("p")
	if len(list) != 1 || list[0].Status != engine.RunCancelled || list[0].Background {
		t.Fatalf("list %+v", list)
	}
}

func TestRegistry_ListIsNewestFirst(t *testing.T) {
	eng := slowEngine(t, engine.Config{})
	var ids []string
	for range 3 {
		res, _ := start(t, eng, engine.WorkflowStartRequest{Script: trivial, Parent: "p"})
		ids = append(ids, res.RunID)
		time.Sleep(time.Millisecond) // distinct start times
	}
	list := eng.Runs("p")
	if len(list) != 3 {
		t.Fatalf("list %+v", list)
	}
	for i, in := range list {
		if in.Status != engine.RunCompleted || in.EndedAt == nil || in.RunID != ids[2-i] {
			t.Fatalf("entry %d is %+v; want the runs %v newest first", i, in, ids)
		}
	}
}
