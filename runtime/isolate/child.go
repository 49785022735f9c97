package isolate

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/internal/wferr"
	"github.com/wfrun/wfrun/runtime"
	"github.com/wfrun/wfrun/sandbox"
)

// ModeWord is the helper mode word of the child process: the engine
// re-executes its own binary as `__wfrun-helper isolate` (see
// agentapi/workspace.Dispatch).
const ModeWord = "isolate"

// Main is the child process: it reads the run from stdin, runs it with
// runtime.Run — its provider, workflow loader and event sink crossing the
// pipe back to the parent — writes the outcome to stdout and returns the
// exit status. It confines itself first: no file system, no network
// (Landlock, where the kernel has it) and a soft memory limit for Go's
// collector; the parent sets the hard one.
func Main(args []string) int {
	return childMain(os.Stdin, os.Stdout, os.Stderr)
}

func childMain(in io.Reader, out io.Writer, stderr io.Writer) int {
	r := bufio.NewReaderSize(in, 64<<10)
	w := newWriter(out)
	first, err := readFrame(r)
	if err != nil || first.Type != msgStart || first.Start == nil {
		fmt.Fprintf(stderr, "wfrun isolate: the first message is not a start message (%v); this mode is started by wfrun itself\n", err)
		return 2
	}
	st := first.Start
	if st.MaxMemory > 0 {
		debug.SetMemoryLimit(st.MaxMemory + st.MaxMemory/2) // the collector works harder before the hard limit
	}
	if err := confine(); err != nil {
		fmt.Fprintf(stderr, "wfrun isolate: %v\n", err)
	}

	c := &child{w: w, calls: map[int64]chan message{}}
	s, err := sandbox.Parse(st.Script.Name, st.Script.Source)
	if err != nil {
		_ = w.send(message{Type: msgEnd, Outcome: &outcomeMsg{Err: toWire(err)}})
		return 0
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	go c.read(r, cancel)

	cfg := runtime.Config{
		RunID: st.RunID, Parent: st.Parent, Script: s, Args: absent(st.Args), Meta: st.Meta,
		Provider:    &pipeProvider{c: c, name: st.Provider, caps: st.Capabilities, personas: st.Personas},
		Concurrency: st.Concurrency, MaxAgents: st.MaxAgents, MaxItems: st.MaxItems,
		Timeout: st.Timeout, AgentTimeout: st.AgentTimeout, BudgetTokens: st.BudgetTokens,
		CancelGrace: st.CancelGrace, MaxResultBytes: st.MaxResultBytes, MaxMemory: st.MaxMemory,
		MaxBusy: st.MaxBusy,
		Sandbox: sandbox.Options{MaxCallStackSize: st.MaxCallStackSize, RegexpTimeout: st.RegexpTimeout},
		Emit: func(ev runtime.Event) {
			_ = w.send(message{Type: msgEvent, Event: &ev})
		},
	}
	if st.Workflows {
		cfg.LoadWorkflow = c.loadWorkflow
	}
	if st.Files {
		cfg.LoadWorkflowFile = c.loadWorkflowFile
	}
	if st.Journal {
		cfg.Journal = &pipeJournal{c: c, prior: st.Prior}
	}
	o := runtime.Run(ctx, cfg)
	end := &outcomeMsg{Value: o.Value, AgentsSpawned: o.AgentsSpawned, Agents: o.Agents, Usage: o.Usage, Worktrees: o.Worktrees}
	if o.Err != nil {
		end.Err = toWire(o.Err)
	}
	if err := w.send(message{Type: msgEnd, Outcome: end}); err != nil {
		fmt.Fprintf(stderr, "wfrun isolate: cannot send the outcome: %v\n", err)
		return 1
	}
	// Calls the runtime abandoned may still be waiting for their answer;
	// the parent ends them when it reads the outcome.
	return 0
}

// child is the child side of the pipe: it sends requests and routes the
// parent's answers to whoever waits for them.
type child struct {
	w      *writer
	nextID atomic.Int64

	mu    sync.Mutex
	calls map[int64]chan message // waiting for the answer with that ID
	gone  bool                   // the parent closed the pipe
}

// read routes the parent's messages until the pipe closes. A cancel
// message, or the parent going away, cancels the run.
func (c *child) read(r *bufio.Reader, cancel context.CancelCauseFunc) {
	for {
		m, err := readFrame(r)
		if err != nil {
			c.mu.Lock()
			c.gone = true
			for id, ch := range c.calls {
				close(ch)
				delete(c.calls, id)
			}
			c.mu.Unlock()
			cancel(wferr.New(wferr.Cancelled, "the engine's process went away"))
			return
		}
		switch m.Type {
		case msgCancel:
			cancel(m.Error.err())
		case msgResult:
			c.mu.Lock()
			ch := c.calls[m.ID]
			delete(c.calls, m.ID)
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		}
	}
}

// ask sends m with a fresh ID and returns the channel its answer comes on
// (closed, without one, if the parent goes away).
func (c *child) ask(m message) (int64, chan message) {
	id := c.nextID.Add(1)
	ch := make(chan message, 1)
	c.mu.Lock()
	if c.gone {
		c.mu.Unlock()
		close(ch)
		return id, ch
	}
	c.calls[id] = ch
	c.mu.Unlock()
	m.ID = id
	if err := c.w.send(m); err != nil {
		c.mu.Lock()
		if _, ok := c.calls[id]; ok {
			delete(c.calls, id)
			close(ch)
		}
		c.mu.Unlock()
	}
	return id, ch
}

var errParentGone = wferr.New(wferr.AgentStart, "the engine's process went away before the agent finished")

// loadWorkflow asks the parent for a saved workflow's source.
func (c *child) loadWorkflow(name string) (*sandbox.Script, error) {
	return c.askWorkflow(message{Type: msgLoadWorkflow, Name: name})
}

// loadWorkflowFile asks the parent for the source of a workflow file of
// the workspace.
func (c *child) loadWorkflowFile(path string) (*sandbox.Script, error) {
	return c.askWorkflow(message{Type: msgLoadWorkflow, Path: path})
}

func (c *child) askWorkflow(q message) (*sandbox.Script, error) {
	_, ch := c.ask(q)
	m, ok := <-ch
	if !ok {
		return nil, errParentGone
	}
	if m.Error != nil {
		return nil, m.Error.err()
	}
	return sandbox.Parse(m.Script.Name, m.Script.Source)
}

// pipeProvider is the provider the child's runtime sees: every Run
// crosses the pipe to the parent, which runs the real provider.
type pipeProvider struct {
	c        *child
	name     string
	caps     agentapi.Capabilities
	personas bool
}

func (p *pipeProvider) Name() string                        { return p.name }
func (p *pipeProvider) Capabilities() agentapi.Capabilities { return p.caps }

// Run asks the parent to run req. When ctx ends first it tells the parent
// to cancel the real provider's context, and goes on waiting for the
// answer, exactly as a provider that honours cancellation is waited for.
func (p *pipeProvider) Run(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
	id, ch := p.c.ask(message{Type: msgCall, Request: &req})
	select {
	case m, ok := <-ch:
		return answer(m, ok)
	case <-ctx.Done():
		_ = p.c.w.send(message{Type: msgAbort, ID: id})
		m, ok := <-ch
		return answer(m, ok)
	}
}

func answer(m message, ok bool) (agentapi.Result, error) {
	switch {
	case !ok:
		return agentapi.Result{}, errParentGone
	case m.Error != nil:
		return agentapi.Result{}, m.Error.err()
	case m.Result == nil:
		return agentapi.Result{}, wferr.New(wferr.AgentResult, "the engine's process answered a call without a result")
	}
	res := *m.Result
	res.Output = absent(res.Output)
	return res, nil
}

// CheckPersona asks the parent's provider, when it checks personas.
func (p *pipeProvider) CheckPersona(name string) error {
	if !p.personas {
		return nil
	}
	_, ch := p.c.ask(message{Type: msgCheckPersona, Name: name})
	m, ok := <-ch
	if !ok {
		return errParentGone
	}
	if m.Error != nil {
		return errors.New(m.Error.Message) // the provider's own sentence
	}
	return nil
}

var _ agentapi.PersonaChecker = (*pipeProvider)(nil)

// pipeJournal is the journal the child's runtime sees: Prior came with the
// start message, and every Record waits until the parent has the entry on
// disk, so an entry is durable before the script sees its child, as in
// process.
type pipeJournal struct {
	c     *child
	prior []runtime.JournalEntry
}

func (j *pipeJournal) Prior() []runtime.JournalEntry { return j.prior }

func (j *pipeJournal) Record(e runtime.JournalEntry) error {
	_, ch := j.c.ask(message{Type: msgRecord, Entry: &e})
	m, ok := <-ch
	if !ok {
		return errParentGone
	}
	if m.Error != nil {
		if m.Error.Code == wferr.ResourceLimit {
			return m.Error.err() // the journal said why: runtime keeps its sentence
		}
		return errors.New(m.Error.Message)
	}
	return nil
}
