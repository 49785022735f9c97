package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine/ledger"
	"github.com/wfrun/wfrun/internal/wferr"
)

// errClosed is the cause of the turn of a child its parent closed.
var errClosed = errors.New("its parent closed the sub-agent")

// Send appends message to the inbox of caller's direct child id and
// returns the number of the turn it will be. A ready child is woken: its
// conversation is resumed from its saved history. The message is on disk
// when Send returns; it runs after the turns before it, never during one.
func (m *Manager) Send(ctx context.Context, caller Caller, id, message string) (int, error) {
	if err := m.refuseClosed(); err != nil {
		return 0, err
	}
	if strings.TrimSpace(message) == "" {
		return 0, wferr.New(wferr.InvalidRequest, "the message is empty: say what the sub-agent should do next")
	}
	s, err := m.direct(caller, id, "send to")
	if err != nil {
		return 0, err
	}
	if s.Status.Ended() {
		return 0, wferr.New(wferr.InvalidRequest, "the sub-agent %s is %s: it takes no more messages; start a new one", id, s.Status)
	}
	c, err := m.load(ctx, id)
	if err != nil {
		return 0, err
	}
	n, err := m.led.Enqueue(ctx, id, m.holder, message, m.opts.MaxQueued)
	if err != nil {
		var full *ledger.InboxFullError
		if errors.As(err, &full) {
			return 0, wferr.Wrap(wferr.ResourceLimit, err, "%v", err)
		}
		return 0, wferr.Wrap(wferr.InvalidRequest, err, "the message was not accepted: %v", err)
	}
	m.kick(c)
	return n, nil
}

// Interrupt cancels the running turn of caller's direct child id, and
// returns its number (0 when no turn was running). It returns at once;
// the turn ends cancelled, and the messages queued behind it stay queued
// and run next. The child itself goes on.
func (m *Manager) Interrupt(caller Caller, id string) (int, error) {
	if _, err := m.direct(caller, id, "interrupt"); err != nil {
		return 0, err
	}
	c := m.loaded(id)
	if c == nil {
		return 0, nil
	}
	c.lock()
	n, stop := c.turn, c.stop
	c.unlock()
	if stop != nil {
		stop(errInterrupted)
	}
	return n, nil
}

// TurnResult is one turn of a child: its message and, once it has ended
// (Done), its outcome.
type TurnResult struct {
	ChildID string          `json:"childId"`
	Turn    int             `json:"turn"`
	Message string          `json:"message"`
	Status  TurnStatus      `json:"status"`
	Done    bool            `json:"done"`
	Text    string          `json:"text,omitempty"`
	Output  json.RawMessage `json:"output,omitempty"` // a schema turn's answer
	Failure string          `json:"failure,omitempty"`
	Error   string          `json:"error,omitempty"`
	Note    string          `json:"note,omitempty"`
	Usage   agentapi.Usage  `json:"usage"`
	// Child is the child's status now, and Queued how many of its
	// messages wait.
	Child  Status `json:"childStatus"`
	Queued int    `json:"queued"`
}

// Result returns turn (0: the current turn when the call comes — the
// oldest that has not ended, else the last) of caller's direct child id
// once it has ended, or
// when wait has passed or ctx ended first, as it is then (Done false). A
// child that is not loaded here runs nothing, so Result does not wait for
// it: its queued turns run once a message wakes it.
func (m *Manager) Result(ctx context.Context, caller Caller, id string, turn int, wait time.Duration) (TurnResult, error) {
	s, err := m.direct(caller, id, "wait for")
	if err != nil {
		return TurnResult{}, err
	}
	if turn < 0 || turn > s.Turns {
		return TurnResult{}, wferr.New(wferr.InvalidRequest, "the sub-agent %s has turns 1 to %d; leave turn out for its current one", id, s.Turns)
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		c := m.loaded(id)
		var changed <-chan struct{}
		if c != nil {
			changed = c.watch() // before reading the ledger, so that no change is missed
		}
		t, err := m.pick(id, turn)
		if err != nil {
			return TurnResult{}, err
		}
		turn = t.Turn // the current turn is the one current when the call came
		if t.Done || c == nil {
			return t, nil
		}
		select {
		case <-changed:
		case <-timer.C:
			return t, nil
		case <-ctx.Done():
			return t, nil
		}
	}
}

// pick reads turn n of a child (0: its current turn) with the child's
// status and queue.
func (m *Manager) pick(id string, n int) (TurnResult, error) {
	var t ledger.Turn
	if n > 0 {
		var err error
		if t, err = m.led.GetTurn(context.Background(), id, n); err != nil {
			return TurnResult{}, wferr.Wrap(wferr.InvalidRequest, err, "%v", err)
		}
	} else {
		turns, err := m.led.Turns(context.Background(), id)
		if err != nil || len(turns) == 0 {
			return TurnResult{}, wferr.Wrap(wferr.Internal, err, "cannot read the turns of the sub-agent %s: %v", id, err)
		}
		t = turns[len(turns)-1]
		for _, x := range turns {
			if !x.Status.Ended() {
				t = x
				break
			}
		}
	}
	s, err := m.led.GetSubagent(context.Background(), id)
	if err != nil {
		return TurnResult{}, wferr.Wrap(wferr.Internal, err, "%v", err)
	}
	queued, _ := m.led.Queued(context.Background(), id)
	return TurnResult{ChildID: id, Turn: t.N, Message: t.Message, Status: t.Status, Done: t.Status.Ended(), Text: t.Text,
		Output: t.Output, Failure: t.Failure, Error: t.Error, Note: t.Note, Usage: t.Usage, Child: s.Status, Queued: queued}, nil
}

// CloseChild ends caller's direct child id for good, and its own children
// with it: its running turn is cancelled, its queued messages are
// cancelled, its conversation is closed and its worktree ended (removed
// when unchanged). It returns the child's entry as it is then.
func (m *Manager) CloseChild(ctx context.Context, caller Caller, id, reason string) (Entry, error) {
	s, err := m.direct(caller, id, "close")
	if err != nil {
		return Entry{}, err
	}
	if reason == "" {
		reason = errClosed.Error()
	}
	if !s.Status.Ended() {
		m.closeTree(ctx, s, reason)
	}
	s, err = m.led.GetSubagent(context.WithoutCancel(ctx), id) // the close is done: say so
	if err != nil {
		return Entry{}, wferr.Wrap(wferr.Internal, err, "%v", err)
	}
	return m.entry(s), nil
}

// CloseAll closes every child of owner that has not ended, with their
// descendants: for an owner nobody will ever speak for again (an MCP
// session with an owner of its own has ended).
func (m *Manager) CloseAll(ctx context.Context, owner, reason string) {
	// Closing goes on when the caller has given up: read and write
	// without its cancellation, as closeTree does.
	all, err := m.led.Subagents(context.WithoutCancel(ctx), owner)
	if err != nil {
		return
	}
	for _, s := range all {
		if s.Parent == "" && !s.Status.Ended() {
			m.closeTree(ctx, s, reason)
		}
	}
}

// closeTree closes s after its descendants.
func (m *Manager) closeTree(ctx context.Context, s ledger.Subagent, reason string) {
	all, _ := m.led.Subagents(context.WithoutCancel(ctx), s.Owner)
	for _, d := range all {
		if d.Parent == s.ID && !d.Status.Ended() {
			m.closeTree(ctx, d, "its parent "+s.ID+" was closed")
		}
	}
	_ = m.led.EndSubagent(context.WithoutCancel(ctx), s.ID, ledger.SubagentCancelled, reason) // no turn starts after this
	m.mu.Lock()
	c := m.children[s.ID]
	delete(m.children, s.ID)
	m.mu.Unlock()
	if c == nil {
		return
	}
	c.lock()
	already := c.ended
	c.ended = true
	stop, done, working := c.stop, c.done, c.working
	c.notifyLocked()
	c.unlock()
	if already {
		return
	}
	if stop != nil {
		stop(errClosed)
	}
	if working {
		// The turn ends at once, its context being cancelled; a provider
		// slower than the grace leaves the closing to the worker.
		timer := time.NewTimer(closeGrace)
		select {
		case <-done:
		case <-timer.C:
		case <-ctx.Done():
		}
		timer.Stop()
	}
	c.finish(m, false)
}

// closeGrace is how long closing a child waits for its running turn to
// end before it returns and leaves the rest to the child's worker.
const closeGrace = 10 * time.Second

// direct returns caller's direct child id, refusing any other with a
// sentence: an unknown id, another owner's, or a deeper descendant (whose
// parent is named).
func (m *Manager) direct(caller Caller, id, verb string) (ledger.Subagent, error) {
	s, err := m.visible(caller, id)
	if err != nil {
		return s, err
	}
	if s.Parent != caller.Child {
		return s, wferr.New(wferr.InvalidRequest,
			"%s is not your direct child: it was started by your sub-agent %s, and only a sub-agent's parent may %s it; ask %s (subagent_send) to do it",
			id, s.Parent, verb, s.Parent)
	}
	return s, nil
}

// visible returns id when it is caller's child or a descendant of one.
func (m *Manager) visible(caller Caller, id string) (ledger.Subagent, error) {
	s, err := m.led.GetSubagent(context.Background(), id)
	if err == nil && s.Owner == caller.Owner && m.descends(s, caller.Child) {
		return s, nil
	}
	return s, wferr.New(wferr.InvalidRequest,
		"no sub-agent %q is known here: it was never started by you or your sub-agents; subagent_list shows yours", id)
}

// descends reports whether s is in the tree below ancestor ("" is the
// owner: every child of the owner descends from it).
func (m *Manager) descends(s ledger.Subagent, ancestor string) bool {
	if ancestor == "" {
		return true
	}
	for hops := 0; s.Parent != "" && hops <= m.opts.DepthLimit+1; hops++ {
		if s.Parent == ancestor {
			return true
		}
		next, err := m.led.GetSubagent(context.Background(), s.Parent)
		if err != nil {
			return false
		}
		s = next
	}
	return false
}
