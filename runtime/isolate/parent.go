package isolate

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	stdruntime "runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/workspace"
	"github.com/wfrun/wfrun/internal/human"
	"github.com/wfrun/wfrun/internal/wferr"
	"github.com/wfrun/wfrun/runtime"
)

// OSMemoryLimit says how the operating system will hold an isolated run to
// its memory budget in this process: "cgroup" (a memory cgroup per run,
// exact), "rlimit" (an address-space limit, which bounds a runaway
// allocation but leaves the Go runtime its reserved address space), or ""
// (neither: the in-process limits of the sandbox and the heap watchdog
// still apply inside the child; so it is with the race detector and no
// writable cgroup).
func OSMemoryLimit() string { return probeCage() }

// Available reports whether this process can start isolated runs: the
// program called engine.Init (workspace.Dispatch with this package's mode)
// at the top of main, so re-executing it reaches Main.
func Available() bool { return workspace.Initialized() }

// ErrUnavailable explains why a run cannot be isolated in this program.
var ErrUnavailable = wferr.New(wferr.InvalidRequest,
	"isolate: process isolation starts each run as this program re-executed in a helper mode, and this program did not call engine.Init() at the top of main; add that call, or run the workflow in-process (isolate: \"none\")")

// stderrTail is how much of the child's stderr is kept for a crash report.
const stderrTail = 8 << 10

// backstop is how long past its deadline and cancel grace a child may go on
// before the parent kills it.
const backstop = 2 * time.Second

// Run runs cfg in a child process and returns its outcome, as
// runtime.Run would in this one: the same events reach cfg.Emit in the same
// order, children run through cfg.Provider here, workflow() resolves
// through cfg.LoadWorkflow here, ctx cancels the run with its cause. The
// child has a memory limit of cfg.MaxMemory from the operating system (see
// cage) and no file system; when it dies — an allocation past the limit, a
// crash in the VM — only this run ends, with RESOURCE_LIMIT (or INTERNAL
// with the child's last words), and every agent.start it reported still gets
// its agent.end. Outcome.Drained closes when the process has exited and
// every provider call has returned.
func Run(ctx context.Context, cfg runtime.Config) runtime.Outcome {
	cfg = runtime.WithDefaults(cfg)
	drained := make(chan struct{})
	p := &parent{cfg: cfg, open: map[string]runtime.Event{}, calls: map[int64]context.CancelFunc{}}
	out := p.run(ctx)
	go func() {
		p.wg.Wait()
		close(drained)
	}()
	out.Drained = drained
	return out
}

// parent is the engine's side of one isolated run.
type parent struct {
	cfg runtime.Config
	cmd *exec.Cmd
	w   *writer
	cg  *cage

	callsCtx    context.Context // the provider calls' parent: cancelled when the child is gone
	cancelCalls context.CancelFunc
	wg          sync.WaitGroup // provider calls and the process

	mu    sync.Mutex
	calls map[int64]context.CancelFunc

	// Seen on the loop of the reader (one goroutine): the agents started
	// and not yet ended, and the tallies of what ended, for an outcome the
	// child did not live to send.
	open    map[string]runtime.Event
	spawned int
	counts  runtime.Counts
	usage   agentapi.Usage
	trees   []runtime.KeptWorktree

	// end is the child's outcome, the first end message it sent. The
	// reader sets it once, before it signals ended and before the pipe's
	// end lets the process be waited for, so the loop may read it after
	// either signal.
	end *outcomeMsg
}

// testHookLoop, when a test sets it, runs at the top of every turn of the
// loop of run, before it waits: a test orders the child's messages and
// exit against the loop with it.
var testHookLoop func(*parent)

func (p *parent) run(ctx context.Context) runtime.Outcome {
	if !Available() {
		return runtime.Outcome{Err: ErrUnavailable}
	}
	if ctx.Err() != nil {
		return runtime.Outcome{Err: runtime.CauseError(ctx)} // no process for a run cancelled before it began
	}
	exe, err := os.Executable()
	if err != nil {
		return runtime.Outcome{Err: wferr.Wrap(wferr.Internal, err, "isolate: cannot find this program to re-execute: %v", err)}
	}
	cmd := exec.Command(exe, workspace.HelperArg, ModeWord)
	cmd.Env = []string{} // the child needs nothing of the engine's environment, and must see none of its secrets
	cmd.SysProcAttr = sysProcAttr()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return runtime.Outcome{Err: wferr.Wrap(wferr.Internal, err, "isolate: %v", err)}
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return runtime.Outcome{Err: wferr.Wrap(wferr.Internal, err, "isolate: %v", err)}
	}
	var stderr tailBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return runtime.Outcome{Err: wferr.Wrap(wferr.Internal, err, "isolate: cannot start the run's process: %v", err)}
	}
	p.cmd, p.w = cmd, newWriter(stdin)
	p.callsCtx, p.cancelCalls = context.WithCancel(context.WithoutCancel(ctx))
	defer p.cancelCalls()
	p.cg, _ = newCage(cmd.Process.Pid, fmt.Sprintf("wfrun-%s-%d", p.cfg.RunID, cmd.Process.Pid), p.cfg.MaxMemory)
	defer p.cg.release() // after the outcome: a cgroup tells whether it killed the child

	exited := make(chan error, 1)
	p.wg.Add(1)
	ended := make(chan struct{}, 1) // the one outcome: the reader never blocks on it
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		p.read(bufio.NewReaderSize(stdout, 64<<10), ended)
	}()
	go func() {
		<-readDone // the pipe is drained before Wait closes it
		exited <- cmd.Wait()
		p.wg.Done()
	}()

	if err := p.w.send(message{Type: msgStart, Start: p.startMsg()}); err != nil {
		_ = cmd.Process.Kill()
	}

	// Cancellation and the deadline reach the child as a cancel message;
	// a child that does not end within its grace (and a backstop) is killed.
	var killTimer *time.Timer
	kill := func(after time.Duration) {
		if killTimer == nil {
			killTimer = time.AfterFunc(after, func() { _ = cmd.Process.Kill() })
		}
	}
	defer func() {
		if killTimer != nil {
			killTimer.Stop()
		}
	}()
	var deadline <-chan time.Time
	if p.cfg.Timeout > 0 {
		t := time.NewTimer(p.cfg.Timeout + p.cfg.CancelGrace + backstop)
		defer t.Stop()
		deadline = t.C
	}
	done := ctx.Done()
	for {
		if testHookLoop != nil {
			testHookLoop(p)
		}
		select {
		case <-ended:
			_ = stdin.Close()
			kill(p.cfg.CancelGrace + backstop) // it exits by itself; this only bounds a stuck exit
			<-exited
			return p.outcome(p.end)
		case err := <-exited:
			// The reader has returned before the process is waited for, so
			// an outcome the child sent is in p.end by now. When the loop
			// was busy elsewhere (sending a cancel) while the child sent it
			// and exited, both cases are ready and select picks either: the
			// outcome, not the exit, is how the run ended.
			if p.end != nil {
				return p.outcome(p.end)
			}
			return p.died(err, stderr.String())
		case <-done:
			done = nil
			_ = p.w.send(message{Type: msgCancel, Error: toWire(runtime.CauseError(ctx))})
			kill(p.cfg.CancelGrace + backstop)
		case <-deadline:
			deadline = nil
			_ = cmd.Process.Kill()
		}
	}
}

func (p *parent) startMsg() *startMsg {
	c := p.cfg
	_, personas := c.Provider.(agentapi.PersonaChecker)
	var prior []runtime.JournalEntry
	if c.Journal != nil {
		prior = c.Journal.Prior()
	}
	return &startMsg{
		Journal: c.Journal != nil, Prior: prior,
		RunID: c.RunID, Parent: c.Parent, Script: scriptMsg{Name: c.Script.Name, Source: c.Script.Source},
		Args: c.Args, Meta: c.Meta,
		Provider: c.Provider.Name(), Capabilities: c.Provider.Capabilities(), Personas: personas,
		Workflows: c.LoadWorkflow != nil, Files: c.LoadWorkflowFile != nil,
		Concurrency: c.Concurrency, MaxAgents: c.MaxAgents, MaxItems: c.MaxItems,
		Timeout: c.Timeout, AgentTimeout: c.AgentTimeout, BudgetTokens: c.BudgetTokens,
		CancelGrace: c.CancelGrace, MaxResultBytes: c.MaxResultBytes, MaxMemory: c.MaxMemory,
		MaxCallStackSize: c.Sandbox.MaxCallStackSize, RegexpTimeout: c.Sandbox.RegexpTimeout,
		MaxBusy: c.MaxBusy,
	}
}

// read handles the child's messages until the pipe closes: the first
// outcome goes to p.end and signals ended, and reading goes on so that the
// pipe is drained. Events go to cfg.Emit from this goroutine only.
func (p *parent) read(r *bufio.Reader, ended chan<- struct{}) {
	for {
		m, err := readFrame(r)
		if err != nil {
			return
		}
		switch m.Type {
		case msgEvent:
			if m.Event != nil {
				p.track(*m.Event)
				p.emit(*m.Event)
			}
		case msgCall:
			if m.Request != nil {
				p.call(m.ID, *m.Request)
			}
		case msgAbort:
			p.mu.Lock()
			if cancel := p.calls[m.ID]; cancel != nil {
				cancel()
			}
			p.mu.Unlock()
		case msgCheckPersona:
			reply := message{Type: msgResult, ID: m.ID}
			if pc, ok := p.cfg.Provider.(agentapi.PersonaChecker); ok {
				if err := hostCall(func() error { return pc.CheckPersona(m.Name) }); err != nil {
					reply.Error = &wireError{Message: err.Error()}
				}
			}
			_ = p.w.send(reply)
		case msgLoadWorkflow:
			reply := message{Type: msgResult, ID: m.ID}
			err := hostCall(func() error {
				load, what := p.cfg.LoadWorkflow, m.Name
				if m.Path != "" {
					load, what = p.cfg.LoadWorkflowFile, m.Path
				}
				if load == nil {
					return wferr.New(wferr.InvalidArgument, "workflow(%q): this run cannot load it (no workflows folder, or no workspace for a scriptPath)", what)
				}
				s, err := load(what)
				if err == nil {
					reply.Script = &scriptMsg{Name: s.Name, Source: s.Source}
				}
				return err
			})
			reply.Error = toWire(err)
			_ = p.w.send(reply)
		case msgRecord:
			reply := message{Type: msgResult, ID: m.ID}
			err := hostCall(func() error {
				if p.cfg.Journal == nil || m.Entry == nil {
					return wferr.New(wferr.Internal, "wfrun bug: a record message for a run without a journal")
				}
				return p.cfg.Journal.Record(*m.Entry)
			})
			// A journal's own error (a run folder's budget) keeps its code;
			// the child's runtime makes any other a RESOURCE_LIMIT.
			reply.Error = toWire(err)
			_ = p.w.send(reply)
		case msgEnd:
			// The first outcome is the run's; a second end message, or one
			// without an outcome, is ignored (a well-behaved child sends one).
			if m.Outcome != nil && p.end == nil {
				p.end = m.Outcome
				ended <- struct{}{}
			}
			// Keep reading: a call the runtime abandoned may still be
			// answered, and the pipe must be drained until the child exits.
		}
	}
}

// hostCall runs a host callback of the run (the workflow loader, the
// persona check), turning a panic into an INTERNAL error for this run only,
// as the runtime does for its host callbacks in-process.
func hostCall(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = wferr.New(wferr.Internal, "wfrun bug: a host function panicked: %v; please report it with the script", r)
		}
	}()
	return f()
}

// emit hands an event to the run's sink, as runtime.Run would: a
// panicking sink does not take the parent down.
func (p *parent) emit(ev runtime.Event) {
	defer func() { _ = recover() }()
	p.cfg.Emit(ev)
}

// track keeps what the events say, for a child that dies.
func (p *parent) track(ev runtime.Event) {
	switch ev.Type {
	case runtime.EventAgentStart:
		p.open[ev.AgentID] = ev
		p.spawned = max(p.spawned, ev.Seq)
	case runtime.EventAgentEnd:
		delete(p.open, ev.AgentID)
		switch ev.Outcome {
		case agentapi.StatusCompleted:
			p.counts.Completed++
		case agentapi.StatusFailed:
			p.counts.Failed++
		case agentapi.StatusTimedOut:
			p.counts.TimedOut++
		case agentapi.StatusCancelled:
			p.counts.Cancelled++
		}
		if ev.Usage != nil {
			p.usage = p.usage.Add(*ev.Usage)
		}
		if ev.Worktree != nil {
			p.trees = append(p.trees, runtime.KeptWorktree{AgentID: ev.AgentID, Worktree: *ev.Worktree})
		}
	}
}

// call runs one child through the real provider on a goroutine of its own
// and sends the answer back.
func (p *parent) call(id int64, req agentapi.Request) {
	req.Schema = absent(req.Schema)
	ctx, cancel := context.WithCancel(p.callsCtx)
	if p.cfg.ChildContext != nil {
		ctx = p.cfg.ChildContext(ctx, req) // tracing: the agent's span, here where the provider runs
	}
	p.mu.Lock()
	p.calls[id] = cancel
	p.mu.Unlock()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		defer func() {
			p.mu.Lock()
			delete(p.calls, id)
			p.mu.Unlock()
			cancel()
		}()
		res, err := p.runProvider(ctx, req)
		reply := message{Type: msgResult, ID: id}
		if err != nil {
			reply.Error = toWire(err)
		} else {
			reply.Result = &res
		}
		_ = p.w.send(reply)
	}()
}

// runProvider runs the provider, turning a panic into an AGENT_RESULT error
// (in-process, the runtime does this; here the provider runs in the parent).
func (p *parent) runProvider(ctx context.Context, req agentapi.Request) (res agentapi.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			buf := make([]byte, 2048)
			buf = buf[:stdruntime.Stack(buf, false)]
			err = wferr.New(wferr.AgentResult, "the %q provider panicked while running agent %s: %v\n%s", p.cfg.Provider.Name(), req.AgentID, r, buf)
		}
	}()
	return p.cfg.Provider.Run(ctx, req)
}

func (p *parent) outcome(o *outcomeMsg) runtime.Outcome {
	p.cancelCalls() // abandoned calls: their answers have nowhere to go
	return runtime.Outcome{Value: o.Value, Err: o.Err.err(), AgentsSpawned: o.AgentsSpawned, Agents: o.Agents,
		Usage: o.Usage, Worktrees: o.Worktrees}
}

// died is the outcome of a child that exited without sending one: every
// agent it reported as started is ended here, as cancelled, and the run
// ends with RESOURCE_LIMIT when the child ran out of memory or stack, else
// INTERNAL with its last words.
func (p *parent) died(waitErr error, stderr string) runtime.Outcome {
	p.cancelCalls()
	err := p.deathError(waitErr, stderr)
	for id, start := range p.open {
		ev := runtime.Event{Type: runtime.EventAgentEnd, RunID: p.cfg.RunID, Time: time.Now(), AgentID: id, Seq: start.Seq,
			Label: start.Label, Phase: start.Phase, Model: start.Model, Outcome: agentapi.StatusCancelled,
			Failure: agentapi.FailureCancelled, Error: "the run's process ended before the agent did: " + err.Message,
			Usage: &agentapi.Usage{}, DurationMs: new(int64)}
		p.counts.Cancelled++
		p.emit(ev)
	}
	p.open = nil
	return runtime.Outcome{Err: err, AgentsSpawned: p.spawned, Agents: p.counts, Usage: p.usage, Worktrees: p.trees}
}

func (p *parent) deathError(waitErr error, stderr string) *wferr.Error {
	last := strings.TrimSpace(stderr)
	if i := strings.LastIndex(last, "\ngoroutine "); i > 0 {
		last = strings.TrimSpace(last[:i]) // the first lines say why; the stacks follow
	}
	if len(last) > 600 {
		last = last[:600] + "…"
	}
	var ee *exec.ExitError
	killed := errors.As(waitErr, &ee) && ee.ProcessState != nil && !ee.Exited()
	switch {
	case strings.Contains(stderr, "out of memory") || (killed && p.cg.oomKilled()):
		return wferr.New(wferr.ResourceLimit, "the run's process went past the operating system's memory limit for it and was stopped; the run's memory limit is %s (--max-memory, maxMemoryBytes): keep less data in the script, or hand large work to agents", human.Bytes(p.cfg.MaxMemory))
	case strings.Contains(stderr, "stack exceeds") || strings.Contains(stderr, "stack overflow"):
		return wferr.New(wferr.ResourceLimit, "the run's process ran out of stack (a builtin recursed too deeply over the script's data) and was stopped; use flatter data")
	case killed:
		return wferr.New(wferr.Timeout, "the run's process did not end within its deadline and cancel grace and was killed")
	}
	return wferr.New(wferr.Internal, "wfrun bug: the run's process ended without an outcome (%v): %s", waitErr, last)
}

// tailBuffer keeps the last stderrTail bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(p)
	if t.buf.Len() > 2*stderrTail {
		rest := t.buf.Bytes()[t.buf.Len()-stderrTail:]
		t.buf.Reset()
		t.buf.Write(rest)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}

var _ io.Writer = (*tailBuffer)(nil)

func sysProcAttrDefault() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
