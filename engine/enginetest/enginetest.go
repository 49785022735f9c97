// Package enginetest is what the tests of every package that drives an
// engine share: an engine closed at the end of the test, and a run whose
// event stream is checked with the shared checker (runtime/eventcheck).
// Test code only.
package enginetest

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/runtime/eventcheck"
)

// Isolated says the suite runs every script in a child process
// (WFRUN_TEST_ISOLATE=process): the same tests in the other mode. A test
// binary whose runs may be isolated calls engine.Init in TestMain.
func Isolated() bool { return os.Getenv("WFRUN_TEST_ISOLATE") == "process" }

// CloseTimeout bounds how long New's cleanup waits for the engine to close.
const CloseTimeout = 10 * time.Second

// New returns an engine for cfg that is closed when the test ends; a close
// that does not finish within CloseTimeout fails the test. Every event of
// every run goes through the engine's sink, in addition to cfg.Events: when
// the engine has closed, each run's stream is checked with the shared
// checker, so a test that starts runs any way it likes is still held to the
// invariants.
func New(t testing.TB, cfg engine.Config) *engine.Engine {
	t.Helper()
	if Isolated() && cfg.Isolate == "" {
		cfg.Isolate = engine.IsolateProcess
	}
	var streams runStreams
	sink := cfg.Events
	cfg.Events = func(ev engine.Event) {
		streams.record(ev)
		if sink != nil {
			sink(ev)
		}
	}
	eng, err := engine.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), CloseTimeout)
		defer cancel()
		if err := eng.Close(ctx); err != nil {
			t.Errorf("close: %v", err)
			return
		}
		streams.check(t)
	})
	return eng
}

// runStreams records events by run.
type runStreams struct {
	mu   sync.Mutex
	runs map[string]*eventcheck.Recorder
	ids  []string // in order of first event
}

func (s *runStreams) record(ev engine.Event) {
	s.mu.Lock()
	rec := s.runs[ev.RunID]
	if rec == nil {
		if s.runs == nil {
			s.runs = make(map[string]*eventcheck.Recorder)
		}
		rec = &eventcheck.Recorder{}
		s.runs[ev.RunID] = rec
		s.ids = append(s.ids, ev.RunID)
	}
	s.mu.Unlock()
	rec.Record(ev)
}

func (s *runStreams) check(t testing.TB) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range s.ids {
		if err := eventcheck.Check(s.runs[id].Events(), eventcheck.Options{RunEvents: true}); err != nil {
			t.Errorf("run %s: event invariants: %v", id, err)
		}
	}
}

// Run starts req on eng and waits for it, recording its events and checking
// their invariants; a failed pre-check comes back rendered as a result (with
// no events to check). The parent defaults to "test".
func Run(t testing.TB, eng *engine.Engine, req engine.WorkflowStartRequest) (engine.WorkflowResult, *eventcheck.Recorder) {
	t.Helper()
	rec := &eventcheck.Recorder{}
	sink := req.OnEvent
	req.OnEvent = func(ev engine.Event) {
		rec.Record(ev)
		if sink != nil {
			sink(ev)
		}
	}
	if req.Parent == "" {
		req.Parent = "test"
	}
	run, err := eng.Start(context.Background(), req)
	if err != nil {
		return engine.FailedResult("", err), rec
	}
	res := run.Wait()
	if err := eventcheck.Check(rec.Events(), eventcheck.Options{RunEvents: true}); err != nil {
		t.Errorf("event invariants: %v", err)
	}
	if n := len(rec.Of(engine.EventAgentStart)); n > res.AgentsSpawned {
		t.Errorf("%d agent.start events for %d spawned agents", n, res.AgentsSpawned)
	}
	return res, rec
}
