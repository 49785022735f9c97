package runtime

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/sandbox"
)

// replayer answers the calls of a resumed run from the journal of the
// attempt it resumes (Journal.Prior). It lives on the loop goroutine only.
//
// A call is replayed while every call before it was: its seq has a
// completed entry whose key equals the call's. The first call that does
// not match ends the prefix, and from then on every call runs live. A
// replayed child emits its agent.start and agent.end at once, holds no
// slot and starts no goroutine; only its delivery to the script waits, so
// that replayed outcomes reach the script in the order they reached it the
// first time (the entries' Order). The argument that this never waits
// for ever on a deterministic script: an outcome that reached the script
// earlier could not depend on one that reached it later, so the call that
// produces it comes without the later one being delivered. When a script
// that changed waits all the same, the loop goes idle and releaseAll hands
// over what is held (and ends the prefix) instead of stalling.
type replayer struct {
	prior map[int]JournalEntry // by seq, the last entry of each seq
	live  bool                 // the prefix has ended

	// waiting are the completed prior entries not yet handed over or
	// dropped, in the order their outcomes reached the script.
	waiting []JournalEntry
	held    map[int]*child // by seq: replayed, waiting for their turn
}

// newReplayer indexes prior; it returns nil (nothing to replay) when prior
// is empty. The second result is the highest Order in prior: a live child of
// this attempt is numbered after it.
func newReplayer(prior []JournalEntry) (*replayer, int) {
	if len(prior) == 0 {
		return nil, 0
	}
	p := &replayer{prior: make(map[int]JournalEntry, len(prior)), held: map[int]*child{}}
	maxOrder := 0
	for _, e := range prior {
		p.prior[e.Seq] = e
		maxOrder = max(maxOrder, e.Order)
	}
	for _, e := range p.prior {
		if e.Status == agentapi.StatusCompleted {
			p.waiting = append(p.waiting, e)
		}
	}
	slices.SortFunc(p.waiting, func(a, b JournalEntry) int {
		return cmp.Or(cmp.Compare(a.Order, b.Order), cmp.Compare(a.Seq, b.Seq))
	})
	return p, maxOrder
}

// take replays c if it continues the prefix, emitting its agent.start and
// agent.end, and reports whether it did. Otherwise it ends the prefix and
// c runs live. Loop goroutine (agentFunc), after c's seq was assigned.
func (p *replayer) take(r *run, c *child) bool {
	if p.live {
		return false
	}
	e, ok := p.prior[c.req.Seq]
	if !ok || e.Status != agentapi.StatusCompleted || e.Key != c.key {
		p.goLive(r, c.req.Seq)
		return false
	}
	r.mu.Lock()
	r.counts.Replayed++
	now := r.sched.Now()
	start := c.event(EventAgentStart)
	start.Time, start.Replayed = now, true
	r.emitLocked(start)
	end := c.event(EventAgentEnd)
	end.Time, end.Replayed = now, true
	end.Outcome, end.Note, end.Usage, end.DurationMs, end.Worktree = agentapi.StatusCompleted, e.Note, &agentapi.Usage{}, ptr(int64(0)), e.Worktree
	r.emitLocked(end)
	r.mu.Unlock()
	p.held[c.req.Seq] = c
	p.flush(r)
	return true
}

// goLive ends the prefix at seq: entries from seq on will never be
// replayed, so nothing held waits for them any more.
func (p *replayer) goLive(r *run, seq int) {
	p.live = true
	p.waiting = slices.DeleteFunc(p.waiting, func(e JournalEntry) bool { return e.Seq >= seq })
	p.flush(r)
}

// flush hands over, in order, every held child whose turn has come.
func (p *replayer) flush(r *run) {
	for len(p.waiting) > 0 {
		e := p.waiting[0]
		c := p.held[e.Seq]
		if c == nil {
			return
		}
		delete(p.held, e.Seq)
		p.waiting = p.waiting[1:]
		r.handOver(c, e)
	}
}

// releaseAll hands over every held child, in order, when the loop is idle
// with some of them still waiting for a call that is not coming (the
// script changed). It ends the prefix and reports whether it handed over
// anything, in which case the loop has work again.
func (p *replayer) releaseAll(r *run) bool {
	if len(p.held) == 0 {
		return false
	}
	p.live = true
	for _, e := range p.waiting {
		if c := p.held[e.Seq]; c != nil {
			delete(p.held, e.Seq)
			r.handOver(c, e)
		}
	}
	p.waiting = nil
	return true
}

// handOver journals a replayed child for this attempt and queues its
// delivery: the same path as a live child's end, with the earlier
// attempt's outcome, and the usage counted in the budget (the script saw it
// the first time) but not in this attempt's usage. Loop goroutine.
func (r *run) handOver(c *child, e JournalEntry) {
	o := outcome{status: agentapi.StatusCompleted, text: e.Text, output: e.Output, note: e.Note,
		usage: e.Usage, worktree: e.Worktree}
	r.jmu.Lock()
	defer r.jmu.Unlock()
	mine := e
	mine.AgentID, mine.Label, mine.Phase, mine.Replayed = c.req.AgentID, c.req.Label, c.req.Phase, true
	if !r.recordLocked(mine) {
		return
	}
	r.mu.Lock()
	r.replayedUsage = r.replayedUsage.Add(e.Usage)
	if e.Worktree != nil {
		r.worktrees = append(r.worktrees, KeptWorktree{AgentID: c.req.AgentID, Worktree: *e.Worktree})
	}
	r.mu.Unlock()
	r.loop.register()(func(rt *sandbox.Runtime) error { return r.deliver(rt, c, o) })
}

// journalEnd writes a finished live child to the journal and only then
// queues its delivery, so that no script ever sees an outcome a crash
// could lose. The journal lock makes the entries' Order agree with the
// loop's queue. It runs where finish runs.
func (r *run) journalEnd(c *child, o outcome) {
	r.jmu.Lock()
	defer r.jmu.Unlock()
	r.order++
	e := JournalEntry{Seq: c.req.Seq, Order: r.order, Key: c.key, AgentID: c.req.AgentID,
		Label: c.req.Label, Phase: c.req.Phase, Status: o.status, Text: o.text, Output: o.output,
		Note: o.note, Usage: o.usage, Worktree: o.worktree}
	if o.status != agentapi.StatusCompleted {
		e.Failure, e.Error = o.failure, o.err
	}
	if !r.recordLocked(e) {
		c.enqueue(func(*sandbox.Runtime) error { return nil }) // the run is over: release the registration
		return
	}
	c.enqueue(func(rt *sandbox.Runtime) error { return r.deliver(rt, c, o) })
}

// recordLocked writes e, turning a failed write (or a panicking journal)
// into the run's fatal error; after one failure nothing more is written.
// The caller holds r.jmu.
func (r *run) recordLocked(e JournalEntry) (ok bool) {
	if r.journalFailed {
		return false
	}
	err := func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				err = panicError{p}
			}
		}()
		return r.cfg.Journal.Record(e)
	}()
	if err != nil {
		r.journalFailed = true
		r.fail(journalError(e.Seq, err))
		return false
	}
	return true
}

type panicError struct{ v any }

func (p panicError) Error() string { return fmt.Sprintf("the journal panicked: %v", p.v) }
