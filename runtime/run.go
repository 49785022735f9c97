package runtime

import (
	"context"
	"encoding/json"
	"errors"
	stdruntime "runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/schema"
	"github.com/wfrun/wfrun/internal/wferr"
	"github.com/wfrun/wfrun/meta"
	"github.com/wfrun/wfrun/sandbox"
)

// Defaults used when a Config field is zero.
const (
	DefaultConcurrency    = 16
	DefaultMaxAgents      = 1000
	DefaultMaxItems       = 4096
	DefaultCancelGrace    = 2 * time.Second
	DefaultMaxResultBytes = 16 << 20
)

// Config is everything one run needs. The engine fills it; zero fields take
// the defaults above.
type Config struct {
	RunID  string
	Parent string

	Script *sandbox.Script
	Args   json.RawMessage // nil: args is undefined
	Meta   meta.WorkflowMeta

	Provider agentapi.Provider

	Concurrency    int           // slots for running children (FIFO)
	MaxAgents      int           // accepted agent() calls per run
	MaxItems       int           // items per parallel()/pipeline() call
	Timeout        time.Duration // the run's deadline; 0 = none
	AgentTimeout   time.Duration // default per-child timeout; 0 = none
	BudgetTokens   int64         // 0 = no budget
	CancelGrace    time.Duration // how long a cancelled child may take to return
	MaxResultBytes int           // size limit of the returned value's JSON
	// MaxMemory is the run's memory budget in bytes: the sandbox's builtins
	// refuse allocations past it, and the heap watchdog (memory.go) ends a
	// run whose script grows the heap past it while running without a
	// pause. 0 means sandbox.DefaultMaxMemory.
	MaxMemory int64
	// MaxBusy, if set, is the longest the script may run without a pause
	// (without awaiting a child): past it the run ends with RESOURCE_LIMIT.
	// A scheduler whose loop must answer in time sets it (a Temporal
	// workflow task that does not finish is taken from its worker); 0, the
	// in-process default, means no limit beyond the run's deadline.
	MaxBusy time.Duration

	// Emit receives the run's events (never run.start or run.end: the
	// engine emits those). It is called from several goroutines, one call at
	// a time, and must not block for long or call back into the run.
	Emit func(Event)

	// LoadWorkflow resolves workflow(name) to a checked script; nil means
	// workflow() is not available (calls fail with INVALID_ARGUMENT).
	LoadWorkflow func(name string) (*sandbox.Script, error)
	// LoadWorkflowFile resolves workflow({scriptPath}) to a checked script;
	// nil means the run has no workspace to read it from.
	LoadWorkflowFile func(path string) (*sandbox.Script, error)

	// ChildContext, if set, derives the context a child's provider runs
	// under from the one the run gives it (a tracer puts the child's span
	// there). It is called on the child's goroutine, after its agent.start,
	// before the provider runs; it must return ctx or a context derived from
	// it, and must not block.
	ChildContext func(ctx context.Context, req agentapi.Request) context.Context

	// Sandbox configures the VM.
	Sandbox sandbox.Options

	// Journal, if set, makes the run durable: every child is recorded in it
	// before the script sees its outcome, and the calls an earlier attempt
	// finished (Journal.Prior) are replayed instead of run (journal.go,
	// replay.go). nil: nothing is written and nothing replayed.
	Journal Journal

	// Scheduler runs the host side: children's work, the loop's waiting,
	// the clock and the timers (scheduler.go). nil: goroutines, channels
	// and the process clock. engine/temporal gives a Temporal workflow's.
	Scheduler Scheduler
}

// Counts tallies how children ended.
type Counts struct {
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
	TimedOut  int `json:"timedOut"`
	Cancelled int `json:"cancelled"`
	// Replayed children were answered from the journal of the attempt the
	// run resumes; they are counted here and nowhere else, so the five
	// counts add up to AgentsSpawned.
	Replayed int `json:"replayed"`
}

// KeptWorktree is a worktree an isolated child of the run left behind.
type KeptWorktree struct {
	AgentID string `json:"agentId"`
	agentapi.Worktree
}

// Outcome is how a run ended.
type Outcome struct {
	Value         json.RawMessage // the script's return value as JSON; nil when Err is set
	Err           *wferr.Error    // nil when the script completed
	AgentsSpawned int
	Agents        Counts
	Usage         agentapi.Usage
	// Worktrees are the worktrees isolated children left behind, in the
	// order they ended.
	Worktrees []KeptWorktree

	// Drained is closed when every child goroutine of the run has returned.
	// It may stay open after Run returns if a provider ignores cancellation.
	Drained <-chan struct{}
}

// run is the state of one run. Fields marked "loop" are touched only on the
// loop goroutine; fields under mu are shared with child goroutines.
type run struct {
	cfg   Config
	sched Scheduler        // cfg.Scheduler, or Go's
	rt    *sandbox.Runtime // loop
	vm    *goja.Runtime    // loop (Interrupt: any goroutine)
	loop  *loop
	watch *heapWatch // the heap watchdog

	childCtx       context.Context
	cancelChildren context.CancelCauseFunc
	gate           gate // guarded by mu

	body *goja.Promise // loop: the script's promise

	phase string // loop: current phase title
	// loop: log events emitted, their bytes, and those dropped past the caps
	logs, logVolume, logsDropped int
	schemas                      map[string]*schema.Schema // loop: compiled schemas by raw text
	helpers                      jsHelpers                 // loop: built on first use
	promise                      goja.Value                // loop: the original Promise constructor (capturePromise)
	// loop: the host globals installed so far (install), and log's function
	installed map[string]bool
	logFn     goja.Value

	// Children not yet ended (logically). shutdown waits, through the
	// scheduler, until it is zero; the loop's wake channel carries the
	// nudge, since the loop no longer waits on it by then.
	pending atomic.Int64

	// Child goroutines still running, and the channel closed when the last
	// of them returns after the run has ended (see Outcome.Drained).
	goroutines  atomic.Int64
	ended       atomic.Bool
	drained     chan struct{}
	drainedOnce sync.Once

	mu        sync.Mutex
	stopping  bool         // no child may start once set
	fatal     *wferr.Error // the first fatal error
	spawned   int
	counts    Counts
	usage     agentapi.Usage
	worktrees []KeptWorktree
	// replayedUsage is what the replayed children cost the first time: the
	// budget counts it (the script saw it spent), the run's usage does not.
	replayedUsage agentapi.Usage

	// With a journal: the replayer (loop goroutine; nil when there is
	// nothing to replay), and under jmu the Order of the last entry written
	// and whether a write failed. Lock order: jmu before mu.
	replay        *replayer
	jmu           sync.Mutex
	order         int
	journalFailed bool
}

// Run runs cfg.Script to the end on the calling goroutine and returns how it
// ended. ctx cancels the run: its cause decides the error (a *wferr.Error
// cause is used as is; anything else becomes CANCELLED).
func Run(ctx context.Context, cfg Config) Outcome {
	cfg = WithDefaults(cfg)
	r := &run{
		cfg:     cfg,
		sched:   cfg.Scheduler,
		schemas: make(map[string]*schema.Schema),
		drained: make(chan struct{}),
	}
	r.gate.free = cfg.Concurrency
	if cfg.Journal != nil {
		r.replay, r.order = newReplayer(cfg.Journal.Prior())
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if cfg.Timeout > 0 {
		var cancelT context.CancelFunc
		ctx, cancelT = r.sched.WithTimeout(ctx, cfg.Timeout,
			wferr.New(wferr.Timeout, "the run passed its deadline of %s; raise the timeout or do less per run", cfg.Timeout))
		defer cancelT()
	}
	// Children do not inherit the run context's cancellation directly: fail
	// marks the run stopping first and then cancels them, so a slot freed by
	// a cancelled child can never start the next one.
	r.childCtx, r.cancelChildren = context.WithCancelCause(context.WithoutCancel(ctx))
	defer r.cancelChildren(nil)

	r.rt = sandbox.New(cfg.Sandbox)
	r.vm = r.rt.VM
	r.loop = newLoop(r.rt, r.sched)
	r.watch = newHeapWatch(r, cfg.MaxMemory, cfg.MaxBusy)
	defer r.watch.close()
	rec, _ := r.sched.(LimitRecorder)
	stretch, recorded := 0, false
	r.loop.busy = func(b bool) {
		if !b {
			r.watch.stop()
			if rec != nil && !recorded {
				if err := r.limitFired(); err != nil {
					recorded = true
					rec.Fired(stretch, err)
				}
			}
			return
		}
		if rec != nil && !recorded {
			stretch++
			prior, live := rec.Stretch(stretch)
			r.watch.setLive(live)
			r.rt.SetLimitsLive(live)
			if prior != nil {
				recorded = true
				r.fail(prior)
			}
		}
		r.watch.start()
	}
	stopWatch := r.sched.AfterFunc(ctx, func() { r.fail(CauseError(ctx)) })

	err := r.drive(ctx)
	// Settling runs script code too (toJSON, getters, a thrown object's
	// message), so the deadline and cancellation still reach it.
	out := r.settle(err)
	stopWatch()
	r.reportDroppedLogs()
	r.shutdown()

	r.mu.Lock()
	out.AgentsSpawned = r.spawned
	out.Agents = r.counts
	out.Usage = r.usage
	out.Worktrees = r.worktrees
	r.mu.Unlock()

	r.ended.Store(true)
	if r.goroutines.Load() == 0 {
		r.closeDrained()
	}
	out.Drained = r.drained
	return out
}

func (r *run) closeDrained() { r.drainedOnce.Do(func() { close(r.drained) }) }

// WithDefaults returns cfg with every zero field set to its default, as
// Run does before running it.
func WithDefaults(cfg Config) Config {
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	if cfg.MaxAgents <= 0 {
		cfg.MaxAgents = DefaultMaxAgents
	}
	if cfg.MaxItems <= 0 {
		cfg.MaxItems = DefaultMaxItems
	}
	if cfg.CancelGrace <= 0 {
		cfg.CancelGrace = DefaultCancelGrace
	}
	if cfg.MaxResultBytes <= 0 {
		cfg.MaxResultBytes = DefaultMaxResultBytes
	}
	if cfg.MaxMemory <= 0 {
		cfg.MaxMemory = sandbox.DefaultMaxMemory
	}
	cfg.Sandbox.MaxMemory = cfg.MaxMemory
	if cfg.Emit == nil {
		cfg.Emit = func(Event) {}
	}
	if cfg.Scheduler == nil {
		cfg.Scheduler = goScheduler{}
	}
	return cfg
}

// CauseError is the run's error that the cause of a done run context
// stands for: a *wferr.Error cause itself, a passed deadline TIMEOUT, any
// other cause CANCELLED. Run reads its context so; a caller that runs the
// VM elsewhere (package isolate) reads it the same way.
func CauseError(ctx context.Context) *wferr.Error {
	cause := context.Cause(ctx)
	if e, ok := wferr.As(cause); ok {
		return e
	}
	if errors.Is(cause, context.DeadlineExceeded) {
		return wferr.New(wferr.Timeout, "the caller's deadline passed before the run finished")
	}
	return wferr.Wrap(wferr.Cancelled, cause, "the run was cancelled by its caller")
}

// CancelledError is the cause to give a run's context when someone cancels it
// on purpose; reason is shown to the user.
func CancelledError(reason string) *wferr.Error {
	if reason == "" {
		reason = "no reason given"
	}
	return wferr.New(wferr.Cancelled, "the run was cancelled: %s", reason)
}

// fail records err as the run's fatal error (the first one wins), stops the
// loop, interrupts the VM and cancels every child. Any goroutine may call it.
func (r *run) fail(err *wferr.Error) {
	r.mu.Lock()
	if r.fatal == nil {
		r.fatal = err
	}
	r.stopping = true
	r.mu.Unlock()
	r.vm.Interrupt(err)
	r.loop.stop()
	r.cancelChildren(err)
}

// limitFired is the error of a limit that measures the machine (the busy
// limit, the heap watchdog, the regexp timeout) if one has fired, else nil.
func (r *run) limitFired() *wferr.Error {
	if err := r.watch.firedError(); err != nil {
		return err
	}
	return r.rt.LimitError()
}

func (r *run) fatalError() *wferr.Error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fatal
}

// drive runs the loop, turning a panic on the loop goroutine (a bug in a host
// function) into an INTERNAL error for this run only.
func (r *run) drive(ctx context.Context) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = bugError(p)
		}
	}()
	r.loop.done = func() bool { return r.body != nil && r.body.State() != goja.PromiseStatePending }
	err = r.loop.run(func(*sandbox.Runtime) error {
		if ctx.Err() != nil {
			r.fail(CauseError(ctx))
			return nil
		}
		return r.start()
	})
	// Idle while replayed outcomes wait for their turn: a call they wait
	// for is not coming, so hand them over and go on (see replayer).
	for err == nil && r.replay != nil && !r.loop.isStopped() && !r.loop.done() && r.replay.releaseAll(r) {
		err = r.loop.run(func(*sandbox.Runtime) error { return nil })
	}
	return err
}

// bugError is the INTERNAL error of a panic recovered on the loop goroutine.
func bugError(p any) *wferr.Error {
	buf := make([]byte, 4096)
	buf = buf[:stdruntime.Stack(buf, false)]
	return wferr.New(wferr.Internal, "wfrun bug: a host function panicked: %v; please report it with the script\n%s", p, buf)
}

// start installs the globals, loads the script and calls its body.
func (r *run) start() error {
	if err := r.install(r.cfg.Script); err != nil {
		return err
	}
	fn, err := r.rt.Load(r.cfg.Script)
	if err != nil {
		return err
	}
	var argsVal goja.Value = goja.Undefined()
	if len(r.cfg.Args) > 0 {
		if argsVal, err = r.rt.ParseJSON(r.cfg.Args); err != nil {
			return wferr.Wrap(wferr.InvalidRequest, err, "args is not valid JSON: %v", err)
		}
	}
	v, err := fn(goja.Undefined(), argsVal, r.workflowArg(r.cfg.Script, 0))
	if err != nil {
		return err
	}
	p, ok := v.Export().(*goja.Promise)
	if !ok {
		return wferr.New(wferr.Internal, "wfrun bug: the script wrapper did not return a promise")
	}
	r.body = p
	return nil
}

// settle decides the outcome once the loop has returned. Exporting the
// value and describing a rejection run script code; settleStep keeps them
// under the run's deadline and cancellation.
func (r *run) settle(loopErr error) Outcome {
	r.mu.Lock()
	fatal := r.fatal
	r.stopping = true
	r.mu.Unlock()
	if fatal != nil {
		return Outcome{Err: fatal}
	}
	if loopErr != nil {
		return Outcome{Err: r.settleStep(func() error { return r.rt.Error(loopErr) })}
	}
	switch {
	case r.body == nil:
		return Outcome{Err: wferr.New(wferr.Internal, "wfrun bug: the run ended before the script started")}
	case r.body.State() == goja.PromiseStateFulfilled:
		var raw []byte
		err := r.settleStep(func() (err error) {
			raw, err = r.rt.ExportJSON(r.body.Result(), r.cfg.MaxResultBytes)
			return err
		})
		if err != nil {
			return Outcome{Err: err}
		}
		return Outcome{Value: raw}
	case r.body.State() == goja.PromiseStateRejected:
		return Outcome{Err: r.settleStep(func() error { return r.rt.RejectionError(r.body.Result()) })}
	default:
		return Outcome{Err: wferr.New(wferr.ScriptStalled,
			"the script is waiting for a promise that nothing will ever settle (no agent is running); await only promises from agent(), parallel(), pipeline(), workflow() or Promise.all over them")}
	}
}

// settleStep runs one step of settling that may run script code, on the
// loop goroutine after the loop has returned. The run's deadline or
// cancellation interrupts it, and then the run's fatal error is the
// outcome: an interrupt that arrives after a step has begun wins over what
// the step returns. A pending interrupt (a regexp that ran over in the
// script's last callback) ends the step at once with its own error.
func (r *run) settleStep(step func() error) (out *wferr.Error) {
	var err error
	// A busy stretch like the loop's: watched, and counted for a
	// LimitRecorder, so a limit that fires while settling is replayed too.
	r.loop.busy(true)
	defer r.loop.busy(false)
	func() {
		defer func() {
			// goja lets an interrupt escape as a panic from code run
			// through Runtime.Try (describing a thrown value does).
			if p := recover(); p != nil {
				if ie, ok := p.(*goja.InterruptedError); ok {
					err = ie
					return
				}
				err = bugError(p)
			}
		}()
		err = step()
	}()
	if f := r.fatalError(); f != nil {
		return f
	}
	if err == nil {
		return nil
	}
	if we, ok := wferr.As(err); ok {
		return we
	}
	return asError(r.rt.Error(err))
}

func asError(err error) *wferr.Error {
	if e, ok := wferr.As(err); ok {
		return e
	}
	return wferr.Wrap(wferr.Internal, err, "wfrun bug: unclassified error: %v", err)
}

// shutdown cancels what is left of the run and waits until every child has
// ended: queued children are dropped without events, running ones are
// cancelled and given CancelGrace to return before they are ended for them.
func (r *run) shutdown() {
	r.mu.Lock()
	r.stopping = true
	cause := r.fatal
	r.mu.Unlock()
	if cause == nil {
		cause = wferr.New(wferr.Cancelled, "the script finished without awaiting this agent")
	}
	r.cancelChildren(cause)
	r.mu.Lock()
	waiting := r.gate.drain()
	r.mu.Unlock()
	for _, c := range waiting {
		r.drop(c)
	}
	for r.pending.Load() > 0 {
		r.sched.Wait(r.noneLeft, r.loop.wake)
	}
}

// noneLeft reports whether every child has ended (shutdown's condition).
func (r *run) noneLeft() bool { return r.pending.Load() == 0 }

// childEnded counts a child as ended, nudging shutdown when it was the
// last one (after the count, so that shutdown cannot miss it). Where
// finish and drop run.
func (r *run) childEnded() {
	if r.pending.Add(-1) == 0 {
		r.loop.nudge()
	}
}

// emit sends an event; the caller holds r.mu, which orders events.
func (r *run) emitLocked(ev Event) {
	ev.RunID = r.cfg.RunID
	if ev.Time.IsZero() {
		ev.Time = r.sched.Now()
	}
	defer func() { _ = recover() }() // a panicking sink must not take the run down
	r.cfg.Emit(ev)
}

func (r *run) emit(ev Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.emitLocked(ev)
}

// fatalf records a fatal error raised by a host function (see raise).
func (r *run) fatalf(code wferr.Code, format string, args ...any) goja.Value {
	return r.raise(wferr.New(code, format, args...))
}

// raise records a fatal error raised by a host function, at the position of
// the script's call of it when err has none, so that a script with twenty
// agent() calls can tell which one was wrong. Loop goroutine, inside a host
// function.
func (r *run) raise(err *wferr.Error) goja.Value {
	if err.Line == 0 {
		err.Line, err.Column = r.rt.CallerPosition()
	}
	r.fail(err)
	return goja.Undefined()
}

func ptr[T any](v T) *T { return &v }

// spentLocked is what the budget counts: the tokens of this attempt's
// children and those the replayed children cost the first time. The caller
// holds r.mu.
func (r *run) spentLocked() int64 { return r.usage.Tokens() + r.replayedUsage.Tokens() }
