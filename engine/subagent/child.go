package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine/ledger"
	"github.com/wfrun/wfrun/internal/wferr"
)

// errInterrupted is the cause of a turn its parent interrupted.
var errInterrupted = errors.New("interrupted by its parent")

// child is a loaded child: its conversation and its worker. The
// conversation belongs to the worker while one runs (working), and to
// whoever holds mu otherwise; row is what it was loaded as.
type child struct {
	row  ledger.Subagent
	conv agentapi.Conversation

	mu      sync.Mutex
	working bool // a worker goroutine is running
	pending bool // a message was accepted while the worker was looking for one
	ended   bool // the child's life is over (or it is unloaded): no worker may start
	closed  bool // its conversation has been closed
	turn    int  // the running turn, 0 when none
	stop    context.CancelCauseFunc
	done    chan struct{} // closed when the current worker exits
	changed chan struct{} // closed and replaced whenever a turn starts or ends
}

func newChild(row ledger.Subagent, conv agentapi.Conversation) *child {
	return &child{row: row, conv: conv, changed: make(chan struct{})}
}

func (c *child) lock()   { c.mu.Lock() }
func (c *child) unlock() { c.mu.Unlock() }

// notifyLocked wakes everyone waiting for a change of the child.
func (c *child) notifyLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// watch returns the channel the next change closes.
func (c *child) watch() <-chan struct{} {
	c.lock()
	defer c.unlock()
	return c.changed
}

// running returns the running turn's number, 0 when none.
func (c *child) running() int {
	c.lock()
	defer c.unlock()
	return c.turn
}

// kick makes sure a worker takes up the child's inbox: a message has just
// been accepted, or the child was loaded with messages waiting.
//
// A message accepted while the manager closes stays queued, on disk: the
// next process runs it when the child wakes.
func (m *Manager) kick(c *child) {
	c.lock()
	defer c.unlock()
	switch {
	case c.ended:
	case c.working:
		c.pending = true
	default:
		// Add under m.mu, which Close takes to set closed before it
		// waits: every Add happens before that Wait, or not at all.
		m.mu.Lock()
		if m.closed {
			m.mu.Unlock()
			return
		}
		m.workers.Add(1)
		m.mu.Unlock()
		c.working, c.pending = true, false
		c.done = make(chan struct{})
		go m.work(c, c.done)
	}
}

// work runs the child's queued turns in order until its inbox is empty,
// the manager closes or the child ends.
func (m *Manager) work(c *child, done chan struct{}) {
	defer m.workers.Done()
	defer close(done)
	for {
		if m.ctx.Err() != nil {
			c.idle(m)
			return
		}
		t, ok, err := m.led.ClaimTurn(m.ctx, c.row.ID, m.holder)
		if err != nil {
			// Ended meanwhile (closed), or the ledger failed: either way
			// no turn can be recorded, so none runs.
			c.idle(m)
			return
		}
		if !ok {
			c.lock()
			if c.pending {
				c.pending = false
				c.unlock()
				continue
			}
			// In the same critical section as the look at pending: a
			// sender that comes after this starts a new worker.
			c.idleUnlock(m)
			return
		}
		if !m.runTurn(c, t) {
			return
		}
	}
}

// idle marks the worker gone. The worker of a child that ended while it
// ran closes the conversation: it was the worker's until now.
func (c *child) idle(m *Manager) {
	c.lock()
	c.idleUnlock(m)
}

// idleUnlock is idle for a caller that holds c's lock; it releases it.
func (c *child) idleUnlock(m *Manager) {
	c.working = false
	ended := c.ended
	c.notifyLocked()
	c.unlock()
	if ended {
		c.finish(m, false)
	}
}

// finish closes the conversation of a child that has ended or is being
// unloaded, once, when no worker runs (a running worker closes it when it
// stops). keep is as for Conversation.Close; a child that is over
// records the worktree it leaves.
func (c *child) finish(m *Manager, keep bool) {
	c.lock()
	if c.working || c.closed {
		c.unlock()
		return
	}
	c.closed = true
	c.unlock()
	kept := c.conv.Close(context.Background(), keep)
	if !keep {
		_ = m.led.SetSubagentWorktree(m.record, c.row.ID, kept)
	}
}

// runTurn runs one claimed turn and records it with the history after it.
// It returns false when the child is over (its provider broke, or its
// turn could not be recorded): the worker then stops.
func (m *Manager) runTurn(c *child, t ledger.Turn) bool {
	ctx, stop := context.WithCancelCause(m.ctx)
	defer stop(nil)
	if m.opts.TurnTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, m.opts.TurnTimeout)
		defer cancel()
	}
	c.lock()
	c.turn, c.stop = t.N, stop
	c.notifyLocked()
	c.unlock()

	res, err := c.conv.Turn(ctx, t.Message)
	cause := context.Cause(ctx)

	c.lock()
	c.turn, c.stop = 0, nil
	c.unlock()

	t.Status = ledger.TurnStatus(res.Status)
	t.Text, t.Output, t.Failure, t.Error, t.Note, t.Usage = res.Text, res.Output, string(res.Failure), res.Error, res.Note, res.Usage
	switch {
	case err != nil:
		t.Status, t.Failure, t.Error = ledger.TurnFailed, "", fmt.Sprintf("the %s provider failed: %v", c.row.Provider, err)
	case !t.Status.Ended():
		t.Status, t.Error = ledger.TurnFailed, fmt.Sprintf("wfrun bug: the %s provider ended a turn with the status %q", c.row.Provider, res.Status)
	case t.Status == ledger.TurnCancelled && (errors.Is(cause, errInterrupted) || errors.Is(cause, errClosing) || errors.Is(cause, errClosed)):
		t.Error = cause.Error()
	}
	history, serr := c.conv.Snapshot()
	if serr != nil {
		history = nil // the history saved after the last turn stays
	}
	ferr := m.led.FinishTurn(m.record, c.row.ID, t, history, res.Worktree)
	queued, _ := m.led.Queued(m.record, c.row.ID)

	c.lock()
	c.notifyLocked()
	c.unlock()
	m.report(Report{Owner: c.row.Owner, Parent: c.row.Parent, ChildID: c.row.ID, Depth: c.row.Depth, Turn: t.N,
		Status: t.Status, Report: reportOf(t), Error: t.Error, Usage: t.Usage, Queued: queued})

	switch {
	case err != nil:
		m.end(c, ledger.SubagentFailed, t.Error)
		return false
	case ferr != nil:
		m.end(c, ledger.SubagentFailed, fmt.Sprintf("its turn %d could not be recorded in the ledger: %v", t.N, ferr))
		return false
	case serr != nil:
		m.end(c, ledger.SubagentFailed, fmt.Sprintf("its history after turn %d could not be saved: %v", t.N, serr))
		return false
	}
	return true
}

// end ends a child's life from its own worker: it is recorded as status,
// it is unloaded, and the worker stops, closing its conversation.
func (m *Manager) end(c *child, status Status, reason string) {
	_ = m.led.EndSubagent(m.record, c.row.ID, status, reason)
	m.mu.Lock()
	delete(m.children, c.row.ID)
	m.mu.Unlock()
	c.lock()
	c.ended = true
	c.unlock()
	c.idle(m)
}

// unload releases a child for the next process: its conversation is
// closed, its worktree kept (every turn saved its history already). No
// worker may be running.
func (c *child) unload(m *Manager) {
	c.lock()
	ended := c.ended
	c.ended = true
	c.notifyLocked()
	c.unlock()
	if ended {
		return
	}
	c.finish(m, true)
	_ = m.led.ReleaseSubagent(m.record, c.row.ID, m.holder)
}

// loaded returns the child id if this process has it loaded, else nil.
func (m *Manager) loaded(id string) *child {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.children[id]
}

// load returns the loaded child id, loading it when it is ready: the
// ledger's hold, then the provider's conversation from the saved history.
// A child that cannot be loaded stays ready, and the error says why.
func (m *Manager) load(ctx context.Context, id string) (*child, error) {
	for {
		m.mu.Lock()
		if m.closed {
			m.mu.Unlock()
			return nil, m.refuseClosed()
		}
		if c := m.children[id]; c != nil {
			m.mu.Unlock()
			return c, nil
		}
		wait, busy := m.loading[id]
		if !busy {
			m.loading[id] = make(chan struct{})
			m.mu.Unlock()
			break
		}
		m.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, wferr.Wrap(wferr.Cancelled, ctx.Err(), "the call ended while the sub-agent %s was being woken", id)
		}
	}
	c, err := m.wake(ctx, id)
	m.mu.Lock()
	if err == nil {
		if m.closed {
			err = m.refuseClosed()
			defer c.unload(m)
			c = nil
		} else {
			m.children[id] = c
		}
	}
	close(m.loading[id])
	delete(m.loading, id)
	m.mu.Unlock()
	if c != nil {
		if n, _ := m.led.Queued(m.record, id); n > 0 {
			m.kick(c) // messages a dead or closed process left waiting
		}
	}
	return c, err
}

// wake holds a ready child and resumes its conversation.
func (m *Manager) wake(ctx context.Context, id string) (*child, error) {
	row, history, err := m.led.HoldSubagent(ctx, id, m.holder)
	if err != nil {
		var held *ledger.HeldError
		if errors.As(err, &held) {
			return nil, wferr.Wrap(wferr.InvalidRequest, err, "%v", err)
		}
		return nil, wferr.Wrap(wferr.InvalidRequest, err, "the sub-agent %s cannot be woken: %v", id, err)
	}
	release := func() { _ = m.led.ReleaseSubagent(context.WithoutCancel(ctx), id, m.holder) }
	var req StartRequest
	if err := json.Unmarshal(row.Request, &req); err != nil {
		release()
		return nil, wferr.Wrap(wferr.Internal, err, "the sub-agent %s's request in the ledger does not read (%v); close it and start a new one", id, err)
	}
	prov, err := m.conversational(row.Provider)
	if err != nil {
		release()
		return nil, wferr.Wrap(wferr.UnsupportedOption, err, "the sub-agent %s ran on the %q provider, which this server cannot run it on: %v", id, row.Provider, err)
	}
	conv, err := prov.Converse(ctx, agentapi.ConversationRequest{Request: req.agentRequest(id, row.Owner),
		Tools: m.childTools(row.Owner, id, row.Depth), Dir: row.Dir, History: history})
	if err != nil {
		release()
		return nil, providerError(row.Provider, err)
	}
	return newChild(row, conv), nil
}

// reportOf is a turn's answer as a report: its text or its JSON, cut.
func reportOf(t ledger.Turn) string {
	text := t.Text
	if len(t.Output) > 0 {
		text = string(t.Output)
	}
	return ledger.Report(text)
}
