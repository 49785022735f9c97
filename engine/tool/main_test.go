package tool_test

import (
	"sync"
	"testing"

	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/enginetest"
	"github.com/wfrun/wfrun/engine/tool"
	"github.com/wfrun/wfrun/internal/testkit/leaktest"
	"github.com/wfrun/wfrun/runtime/eventcheck"
)

func TestMain(m *testing.M) {
	engine.Init() // isolated runs and sandboxed tools re-execute this test binary
	leaktest.VerifyTestMain(m, leaktest.StateDir())
}

// streams records every run's events by run id, for tests that look at
// the events of one run (enginetest.New checks them all).
type streams struct {
	mu   sync.Mutex
	runs map[string]*eventcheck.Recorder
}

func (s *streams) record(ev engine.Event) {
	s.mu.Lock()
	rec := s.runs[ev.RunID]
	if rec == nil {
		if s.runs == nil {
			s.runs = map[string]*eventcheck.Recorder{}
		}
		rec = &eventcheck.Recorder{}
		s.runs[ev.RunID] = rec
	}
	s.mu.Unlock()
	rec.Record(ev)
}

// of returns the events of one run.
func (s *streams) of(runID string) []engine.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rec := s.runs[runID]; rec != nil {
		return rec.Events()
	}
	return nil
}

// newEngine returns an engine whose every event is recorded, and checked
// once the engine has closed at the end of the test.
func newEngine(t *testing.T, cfg engine.Config) (*engine.Engine, *streams) {
	t.Helper()
	evs := &streams{}
	cfg.Events = evs.record
	return enginetest.New(t, cfg), evs
}

// newSet returns the tools on a new engine with the given fake rules.
func newSet(t *testing.T, rules string, opts tool.Options) (*tool.Set, *streams) {
	t.Helper()
	cfg := engine.Config{}
	if rules != "" {
		cfg.FakeRules = mustRules(t, rules)
	}
	eng, evs := newEngine(t, cfg)
	return tool.New(eng, opts), evs
}

// slowRules make every prompt that starts with "slow" take 30 s (unless
// cancelled) and the others answer at once.
const slowRules = `{"rules":[{"match":"^slow","delayMs":30000}]}`

func mustRules(t *testing.T, rules string) *fake.Rules {
	t.Helper()
	r, err := fake.Parse([]byte(rules))
	if err != nil {
		t.Fatal(err)
	}
	return r
}
