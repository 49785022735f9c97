package temporal_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/wfrun/wfrun/engine"
)

// sink collects the events a worker forwards.
type sink struct {
	mu     sync.Mutex
	events []engine.Event
	ended  chan struct{} // closed at the first agent.end
	once   sync.Once
}

func newSink() *sink { return &sink{ended: make(chan struct{})} }

func (s *sink) record(ev engine.Event) {
	s.mu.Lock()
	s.events = append(s.events, ev)
	s.mu.Unlock()
	if ev.Type == engine.EventAgentEnd {
		s.once.Do(func() { close(s.ended) })
	}
}

func (s *sink) all() []engine.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]engine.Event(nil), s.events...)
}

func TestEndToEnd_AWorkerThatTakesARunOverForwardsAllItsEvents(t *testing.T) {
	cl := newCluster(t)
	first, second := newSink(), newSink()
	cl.opts.Events = first.record
	stop := cl.worker(newCounting(700))
	script := `export const meta = {name: 'handover', description: 'three agents one after another'}
const a = await agent('one')
const b = await agent('two')
const c = await agent('three')
return [a, b, c].length`
	run, err := cl.client().Start(context.Background(), engine.WorkflowStartRequest{Parent: "events", Script: script})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-first.ended:
	case <-time.After(time.Minute):
		t.Fatal("the first worker ended no agent in a minute")
	}
	stop()
	cl.opts.Events = second.record
	cl.worker(newCounting(0))
	var all []engine.Event
	res, err := run.Wait(context.Background(), func(ev engine.Event) { all = append(all, ev) })
	if err != nil || res.StopReason != engine.StopCompleted {
		t.Fatalf("%+v %v", res, err)
	}
	got := second.all()
	if len(got) != len(all) {
		t.Fatalf("the second worker forwarded %d events, the run has %d: %v", len(got), len(all), types(got))
	}
	for i := range all {
		if got[i].Type != all[i].Type {
			t.Fatalf("event %d: the second worker forwarded %s, the run has %s", i, got[i].Type, all[i].Type)
		}
	}
	if first := first.all(); len(first) == 0 || first[0].Type != engine.EventRunStart {
		t.Fatalf("the first worker forwarded %v", types(first))
	}
}

func types(evs []engine.Event) []engine.EventType {
	out := make([]engine.EventType, len(evs))
	for i, ev := range evs {
		out[i] = ev.Type
	}
	return out
}
