package subagent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/ledger"
	"github.com/wfrun/wfrun/internal/wferr"
)

// The defaults of a zero Options field.
const (
	DefaultDepthLimit  = 2         // the owner's children are depth 1, theirs depth 2
	DefaultMaxChildren = 32        // live children per owner
	DefaultMaxQueued   = 100       // messages waiting in one inbox
	DefaultTurnTimeout = time.Hour // one turn's deadline
)

// Status is where a child is in its life (running, idle, ready, failed,
// cancelled); TurnStatus is where one of its messages is. Both are the
// ledger's vocabularies.
type (
	Status     = ledger.SubagentStatus
	TurnStatus = ledger.TurnStatus
)

// Options configures a Manager. The zero value is usable.
type Options struct {
	// Provider runs the children whose start names none; "" means the
	// engine's default provider. It must be agentapi.Conversational.
	Provider string
	// DepthLimit is the deepest a child may be (the owner's children are
	// depth 1); 0 means DefaultDepthLimit.
	DepthLimit int
	// MaxChildren is how many children that have not ended one owner may
	// have; 0 means DefaultMaxChildren.
	MaxChildren int
	// MaxQueued is how many messages may wait in one inbox; 0 means
	// DefaultMaxQueued.
	MaxQueued int
	// TurnTimeout bounds one turn; 0 means DefaultTurnTimeout, a negative
	// value none.
	TurnTimeout time.Duration
	// Dir holds a folder per child (its request and transcript); "" means
	// "subagents" beside the engine's runs folder (.wfrun/subagents).
	Dir string
	// Heartbeat is how often the leases of the loaded children are
	// renewed; 0 means a tenth of the ledger's lease.
	Heartbeat time.Duration
	// ChildTools returns the tools a child whose depth is below the limit
	// gets to start and talk to children of its own, bound to caller (the
	// child, as their parent). nil: children start no children.
	// engine/tool's ChildTools is the usual value.
	ChildTools func(caller Caller) agentapi.Toolbox
}

// Caller is who asks: an owner (the agent that owns the children: an MCP
// session's owner, "agent" for wfrun agent), or one of the owner's
// children, through the tools it was given.
type Caller struct {
	Owner string
	Child string // the calling child's id; "" when the owner itself calls
}

// Report is what a watcher learns when a turn ends.
type Report struct {
	Owner   string     `json:"owner"`
	Parent  string     `json:"parent,omitempty"` // "" when the owner is the parent
	ChildID string     `json:"childId"`
	Depth   int        `json:"depth"`
	Turn    int        `json:"turn"`
	Status  TurnStatus `json:"status"`
	// Report is the turn's answer (a schema call's JSON), cut at
	// ledger.ReportRunes; Error says why a turn did not complete.
	Report string         `json:"report,omitempty"`
	Error  string         `json:"error,omitempty"`
	Usage  agentapi.Usage `json:"usage"`
	// Queued is how many messages wait behind it.
	Queued int `json:"queued"`
}

// Manager keeps an engine's continuable children. It is safe for
// concurrent use. Create it with New and end it with Close, before the
// engine is closed.
type Manager struct {
	eng    *engine.Engine
	led    *ledger.Ledger
	opts   Options
	holder string // this process's name in the ledger's holder column

	ctx    context.Context // cancelled by Close: every turn runs under it
	cancel context.CancelCauseFunc
	record context.Context // ctx without its cancellation: what a child leaves is written to the ledger while the manager closes

	mu       sync.Mutex
	children map[string]*child        // the loaded children
	loading  map[string]chan struct{} // children being loaded, closed when done
	watchers map[int]func(Report)
	nextW    int
	closed   bool

	workers  sync.WaitGroup // the children's workers
	beat     sync.WaitGroup // the heartbeat
	stop     chan struct{}  // ends the heartbeat
	shutdown sync.Once      // Close's unloading, once the workers have stopped
}

// errClosing is the cause of the turns Close cancels.
var errClosing = errors.New("the server shut down before the turn ended; send the message again to have it done")

// New returns the manager of eng's continuable children. eng must keep
// runs (Config.RunsDir): the children live in its ledger. New marks ready
// every child an earlier process left loaded when that process died.
func New(eng *engine.Engine, opts Options) (*Manager, error) {
	led := eng.Ledger()
	if led == nil {
		return nil, wferr.New(wferr.InvalidRequest, "continuable sub-agents are kept in the run ledger, and this engine keeps no runs: set engine.Config.RunsDir (the CLI's --runs-dir)")
	}
	if opts.Provider == "" {
		opts.Provider = eng.DefaultProvider()
	}
	if opts.DepthLimit <= 0 {
		opts.DepthLimit = DefaultDepthLimit
	}
	if opts.MaxChildren <= 0 {
		opts.MaxChildren = DefaultMaxChildren
	}
	if opts.MaxQueued <= 0 {
		opts.MaxQueued = DefaultMaxQueued
	}
	switch {
	case opts.TurnTimeout == 0:
		opts.TurnTimeout = DefaultTurnTimeout
	case opts.TurnTimeout < 0:
		opts.TurnTimeout = 0
	}
	if opts.Dir == "" {
		opts.Dir = filepath.Join(filepath.Dir(filepath.Clean(eng.RunsDir())), "subagents")
	}
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = max(led.Lease()/10, 10*time.Millisecond)
	}
	if _, err := led.SweepSubagents(context.Background()); err != nil {
		return nil, fmt.Errorf("subagent: %w", err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	m := &Manager{eng: eng, led: led, opts: opts, holder: "sh_" + randomHex(), ctx: ctx, cancel: cancel, record: context.WithoutCancel(ctx),
		children: map[string]*child{}, loading: map[string]chan struct{}{}, watchers: map[int]func(Report){},
		stop: make(chan struct{})}
	m.beat.Add(1)
	go m.heartbeat()
	return m, nil
}

// DepthLimit is the deepest a child may be.
func (m *Manager) DepthLimit() int { return m.opts.DepthLimit }

// heartbeat renews the leases of the loaded children until Close.
func (m *Manager) heartbeat() {
	defer m.beat.Done()
	t := time.NewTicker(m.opts.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			_ = m.led.RenewSubagents(m.record, m.holder) // a missed beat is made up by the next; ten make a lease
		}
	}
}

// Watch registers fn for the report of every turn that ends, of every
// owner, until the returned function is called. fn is called from the
// child's worker goroutine, one report at a time per child, and must not
// block for long.
func (m *Manager) Watch(fn func(Report)) (stop func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nextW++
	id := m.nextW
	m.watchers[id] = fn
	return func() {
		m.mu.Lock()
		delete(m.watchers, id)
		m.mu.Unlock()
	}
}

func (m *Manager) report(r Report) {
	m.mu.Lock()
	ws := make([]func(Report), 0, len(m.watchers))
	for _, w := range m.watchers {
		ws = append(ws, w)
	}
	m.mu.Unlock()
	for _, w := range ws {
		func() {
			defer func() { _ = recover() }() // a panicking watcher must not end the worker
			w(r)
		}()
	}
}

// Close cancels the running turns (they end cancelled), waits until every
// worker has recorded its turn, saves and unloads every loaded child — they
// are ready for the next process — and stops the heartbeat. It returns
// ctx's error if ctx ends first; the workers then go on ending, and Close
// may be called again to wait for them. Every other call after Close
// fails.
func (m *Manager) Close(ctx context.Context) error {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.cancel(errClosing)
	done := make(chan struct{})
	go func() {
		m.workers.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		return ctx.Err()
	}
	m.shutdown.Do(func() {
		m.mu.Lock()
		loaded := make([]*child, 0, len(m.children))
		for _, c := range m.children {
			loaded = append(loaded, c)
		}
		m.children = map[string]*child{}
		m.mu.Unlock()
		for _, c := range loaded {
			c.unload(m)
		}
		close(m.stop)
		m.beat.Wait()
	})
	return nil
}

// refuseClosed is the error of a call after Close.
func (m *Manager) refuseClosed() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return wferr.New(wferr.Cancelled, "the sub-agent manager is closed: the server is shutting down")
	}
	return nil
}

// randomHex is 16 random hex digits.
func randomHex() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// newChildID returns "sa_" and 16 random hex digits.
func newChildID() string { return "sa_" + randomHex() }
