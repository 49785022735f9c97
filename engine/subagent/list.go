package subagent

import (
	"context"
	"fmt"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine/ledger"
	"github.com/wfrun/wfrun/internal/human"
	"github.com/wfrun/wfrun/internal/wferr"
)

// Scope says which children List shows.
type Scope string

// The scopes.
const (
	ScopeChildren    Scope = "children"    // the caller's direct children
	ScopeDescendants Scope = "descendants" // every child below the caller, in pre-order
)

// Entry is one child as its parent sees it.
type Entry struct {
	ChildID string `json:"childId"`
	// Parent is the child that started it, "" when the owner did.
	Parent    string `json:"parent,omitempty"`
	Depth     int    `json:"depth"`
	Status    Status `json:"status"`
	Label     string `json:"label"`
	AgentType string `json:"agentType,omitempty"`
	Model     string `json:"model,omitempty"`
	Provider  string `json:"provider"`
	// Turns counts the accepted messages; Queued how many wait;
	// RunningTurn is the turn running now (0: none).
	Turns       int `json:"turns"`
	Queued      int `json:"queued"`
	RunningTurn int `json:"runningTurn,omitempty"`
	// The last turn that ended: its number, status, answer (cut at
	// ledger.ReportRunes characters) and error.
	LastTurn   int                `json:"lastTurn,omitempty"`
	LastStatus TurnStatus         `json:"lastStatus,omitempty"`
	LastReport string             `json:"lastReport,omitempty"`
	LastError  string             `json:"lastError,omitempty"`
	Usage      agentapi.Usage     `json:"usage"`
	Worktree   *agentapi.Worktree `json:"worktree,omitempty"`
	CreatedAt  time.Time          `json:"createdAt"`
	EndedAt    *time.Time         `json:"endedAt,omitempty"`
}

// entry renders a row with what this process knows of it.
func (m *Manager) entry(s ledger.Subagent) Entry {
	e := Entry{ChildID: s.ID, Parent: s.Parent, Depth: s.Depth, Status: s.Status, Label: s.Label, AgentType: s.Persona,
		Model: s.Model, Provider: s.Provider, Turns: s.Turns, LastTurn: s.LastTurn, LastStatus: s.LastStatus,
		LastReport: s.LastReport, LastError: s.LastError, Usage: s.Usage, Worktree: s.Worktree, CreatedAt: s.CreatedAt,
		EndedAt: s.EndedAt}
	e.Queued, _ = m.led.Queued(context.Background(), s.ID)
	if c := m.loaded(s.ID); c != nil {
		e.RunningTurn = c.running()
	}
	return e
}

// List returns caller's children (ScopeChildren, "" too) or all its
// descendants (ScopeDescendants), in a stable pre-order: each child
// follows its parent, and siblings come in the order they were started.
// Ended children are listed too.
func (m *Manager) List(caller Caller, scope Scope) ([]Entry, error) {
	switch scope {
	case "", ScopeChildren, ScopeDescendants:
	default:
		return nil, wferr.New(wferr.InvalidRequest, "scope must be %q or %q, not %q", ScopeChildren, ScopeDescendants, scope)
	}
	_, _ = m.led.SweepSubagents(m.ctx) // a child whose process died shows as ready
	all, err := m.led.Subagents(context.Background(), caller.Owner)
	if err != nil {
		return nil, wferr.Wrap(wferr.Internal, err, "cannot read the sub-agents from the ledger: %v", err)
	}
	kids := map[string][]ledger.Subagent{} // by parent, in seq order
	for _, s := range all {
		kids[s.Parent] = append(kids[s.Parent], s)
	}
	out := []Entry{}
	var walk func(parent string)
	walk = func(parent string) {
		for _, s := range kids[parent] {
			out = append(out, m.entry(s))
			if scope == ScopeDescendants {
				walk(s.ID)
			}
		}
	}
	walk(caller.Child)
	return out, nil
}

// Get returns one child of caller's tree (a direct child or deeper).
func (m *Manager) Get(caller Caller, id string) (Entry, error) {
	s, err := m.visible(caller, id)
	if err != nil {
		return Entry{}, err
	}
	return m.entry(s), nil
}

// Turns returns every turn of one child of caller's tree, queued ones
// included, in order.
func (m *Manager) Turns(caller Caller, id string) ([]ledger.Turn, error) {
	if _, err := m.visible(caller, id); err != nil {
		return nil, err
	}
	ts, err := m.led.Turns(context.Background(), id)
	if err != nil {
		return nil, wferr.Wrap(wferr.Internal, err, "cannot read the turns of %s: %v", id, err)
	}
	return ts, nil
}

// Line renders an entry on one line, e.g.
//
//	sa_3f… "research A" idle · depth 1 · 2 turns, 0 queued · last: turn 2 completed · 1.2k tokens
func (e Entry) Line() string {
	s := fmt.Sprintf("%s %q %s · depth %d · %d %s, %d queued", e.ChildID, e.Label, e.Status, e.Depth, e.Turns, human.Noun(e.Turns, "turn", "turns"), e.Queued)
	if e.Parent != "" {
		s += " · parent " + e.Parent
	}
	if e.RunningTurn > 0 {
		s += fmt.Sprintf(" · running turn %d", e.RunningTurn)
	}
	if e.LastTurn > 0 {
		s += fmt.Sprintf(" · last: turn %d %s", e.LastTurn, e.LastStatus)
	}
	return s + fmt.Sprintf(" · %d tokens", e.Usage.Tokens())
}
