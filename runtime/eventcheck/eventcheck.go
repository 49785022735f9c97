// Package eventcheck checks the invariants of a run's event stream, as
// docs/cli.md ("Events") states them. Every test that runs a script records
// its events with a Recorder and calls Check, so one checker states the
// contract for all of them.
package eventcheck

import (
	"fmt"
	"sync"

	"github.com/wfrun/wfrun/runtime"
)

// Recorder collects events; its Record method is a valid event sink.
type Recorder struct {
	mu     sync.Mutex
	events []runtime.Event
}

// Record appends ev. Safe for concurrent use.
func (r *Recorder) Record(ev runtime.Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
}

// Events returns a copy of what was recorded.
func (r *Recorder) Events() []runtime.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]runtime.Event(nil), r.events...)
}

// Of returns the recorded events of one type.
func (r *Recorder) Of(t runtime.EventType) []runtime.Event {
	var out []runtime.Event
	for _, ev := range r.Events() {
		if ev.Type == t {
			out = append(out, ev)
		}
	}
	return out
}

// Options says what stream Check is given.
type Options struct {
	// RunEvents says the stream is an engine sink's, with run.start first
	// and run.end last; without it (the runtime's own stream) neither may
	// appear.
	RunEvents bool
	// Concurrency is the run's number of slots. 0 means the concurrency
	// run.start carries, else runtime.DefaultConcurrency.
	Concurrency int
}

// Check verifies the invariants of one run's complete stream:
//   - all events carry the same runId;
//   - with RunEvents, run.start is first and run.end last, once each;
//     without, neither appears;
//   - every agent.start has exactly one agent.end with the same agentId,
//     after it, and no agent.end lacks its start;
//   - agent.end has a valid outcome; a non-completed one has an error;
//   - agent seq numbers are unique, and agent.start events come in
//     increasing seq order (the slots are handed out first come, first
//     served);
//   - at no point are more children running (started, not yet ended) than
//     the run has slots;
//   - a replayed child (answered from a journal) has its agent.end right
//     after its agent.start, completed, and every replayed child starts
//     before the first live one: replay is a prefix of the calls.
func Check(events []runtime.Event, o Options) error {
	if len(events) == 0 {
		if o.RunEvents {
			return fmt.Errorf("no events")
		}
		return nil
	}
	c := &checker{o: o, n: len(events), slots: slotsOf(events, o), runID: events[0].RunID,
		started: map[string]bool{}, ended: map[string]bool{}, seqs: map[int]string{}}
	for i, ev := range events {
		if err := c.event(i, ev); err != nil {
			return err
		}
	}
	if o.RunEvents {
		if events[0].Type != runtime.EventRunStart {
			return fmt.Errorf("first event is %s, want run.start", events[0].Type)
		}
		if events[len(events)-1].Type != runtime.EventRunEnd {
			return fmt.Errorf("last event is %s, want run.end", events[len(events)-1].Type)
		}
	}
	for id := range c.started {
		if !c.ended[id] {
			return fmt.Errorf("agent %s started but never ended", id)
		}
	}
	return nil
}

// slotsOf is the run's number of slots: the option's, else run.start's,
// else the default.
func slotsOf(events []runtime.Event, o Options) int {
	slots := o.Concurrency
	if slots <= 0 && o.RunEvents && events[0].Type == runtime.EventRunStart {
		slots = events[0].Concurrency
	}
	if slots <= 0 {
		slots = runtime.DefaultConcurrency
	}
	return slots
}

// checker is what Check knows of a stream so far.
type checker struct {
	o            Options
	n            int // the stream's length
	slots        int
	runID        string
	started      map[string]bool
	ended        map[string]bool
	seqs         map[int]string // agentId by seq
	lastSeq      int
	running      int
	liveSeen     string // the first live agent, once one started
	replayedOpen string // a replayed agent started and not yet ended
}

// event checks event i.
func (c *checker) event(i int, ev runtime.Event) error {
	if c.replayedOpen != "" && !(ev.Type == runtime.EventAgentEnd && ev.AgentID == c.replayedOpen) {
		return fmt.Errorf("replayed agent %s is not ended right after its start (event %d is %s)", c.replayedOpen, i, ev.Type)
	}
	if ev.RunID != c.runID {
		return fmt.Errorf("event %d (%s) has runId %q, want %q", i, ev.Type, ev.RunID, c.runID)
	}
	switch ev.Type {
	case runtime.EventRunStart:
		if !c.o.RunEvents || i != 0 {
			return fmt.Errorf("run.start at position %d", i)
		}
	case runtime.EventRunEnd:
		if !c.o.RunEvents || i != c.n-1 {
			return fmt.Errorf("run.end at position %d of %d", i, c.n)
		}
	case runtime.EventAgentStart:
		return c.agentStart(i, ev)
	case runtime.EventAgentEnd:
		return c.agentEnd(i, ev)
	case runtime.EventPhase, runtime.EventLog:
	default:
		return fmt.Errorf("unknown event type %q", ev.Type)
	}
	return nil
}

// agentStart checks an agent.start: once per agent, in seq order, replayed
// ones first, within the slots.
func (c *checker) agentStart(i int, ev runtime.Event) error {
	if c.started[ev.AgentID] {
		return fmt.Errorf("agent %s started twice", ev.AgentID)
	}
	if other, dup := c.seqs[ev.Seq]; dup {
		return fmt.Errorf("agents %s and %s share seq %d", other, ev.AgentID, ev.Seq)
	}
	if ev.Seq <= c.lastSeq {
		return fmt.Errorf("agent %s (seq %d) started after seq %d: slots are not first come, first served", ev.AgentID, ev.Seq, c.lastSeq)
	}
	c.seqs[ev.Seq], c.lastSeq = ev.AgentID, ev.Seq
	c.started[ev.AgentID] = true
	switch {
	case ev.Replayed && c.liveSeen != "":
		return fmt.Errorf("replayed agent %s started after live agent %s: replay is a prefix of the calls", ev.AgentID, c.liveSeen)
	case ev.Replayed:
		c.replayedOpen = ev.AgentID
	case c.liveSeen == "":
		c.liveSeen = ev.AgentID
	}
	if c.running++; c.running > c.slots {
		return fmt.Errorf("agent %s started while %d others were running (event %d); the run has %d slots", ev.AgentID, c.running-1, i, c.slots)
	}
	return nil
}

// agentEnd checks an agent.end: once, after its start, with a valid
// outcome, an error unless completed, and replayed exactly when its start
// was.
func (c *checker) agentEnd(i int, ev runtime.Event) error {
	if !c.started[ev.AgentID] {
		return fmt.Errorf("agent %s ended without a start (event %d)", ev.AgentID, i)
	}
	if c.ended[ev.AgentID] {
		return fmt.Errorf("agent %s ended twice", ev.AgentID)
	}
	c.ended[ev.AgentID] = true
	c.running--
	if ev.AgentID == c.replayedOpen {
		c.replayedOpen = ""
		if !ev.Replayed || ev.Outcome != "completed" {
			return fmt.Errorf("replayed agent %s ended %s (replayed %v); a replayed agent ends completed and replayed", ev.AgentID, ev.Outcome, ev.Replayed)
		}
	} else if ev.Replayed {
		return fmt.Errorf("agent %s ended replayed but did not start replayed", ev.AgentID)
	}
	if !ev.Outcome.Valid() {
		return fmt.Errorf("agent %s ended with outcome %q", ev.AgentID, ev.Outcome)
	}
	if ev.Outcome != "completed" && ev.Error == "" {
		return fmt.Errorf("agent %s ended %s without an error", ev.AgentID, ev.Outcome)
	}
	return nil
}
