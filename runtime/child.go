package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	stdruntime "runtime"
	"time"

	"github.com/dop251/goja"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/schema"
	"github.com/wfrun/wfrun/internal/wferr"
	"github.com/wfrun/wfrun/sandbox"
)

// callForm is how agent() was called: it decides the shape of its value.
type callForm int

const (
	formText   callForm = iota // agent(prompt, opts): text, object or null
	formObject                 // agent({prompt, …}): the envelope
)

// child is one accepted agent() call. Its lifecycle: queued (waiting for a
// slot) → running (agent.start emitted) → ended (agent.end emitted, exactly
// once, by finish or by the cancel watchdog). A child dropped while queued
// emits nothing.
//
// The functions below are the host side of a run (except dispatch, drop
// and deliver, which run on the loop goroutine): each says on which
// goroutine it runs and which lock it holds. The loop side never waits for
// r.mu for long — host code holds it only to update counts, emit an event
// or move a slot — and host code never touches the VM.
type child struct {
	req     agentapi.Request
	form    callForm
	schema  *schema.Schema
	enqueue func(callback) // hands the outcome to the loop; called exactly once

	resolve func(any) error // loop goroutine only
	key     string          // CallKey of req, set only when the run has a journal

	// Guarded by run.mu.
	startedAt time.Time
	ended     bool
}

// outcome is what a finished child hands back to the script.
type outcome struct {
	status  agentapi.Status
	failure agentapi.FailureKind
	err     string
	text    string
	output  json.RawMessage // set for a completed schema call
	note    string          // the provider's remark on the child (e.g. "max_turns reached")
	usage   agentapi.Usage

	worktree *agentapi.Worktree // the isolated child's kept worktree, if any
}

// dispatch starts c if a slot is free, or queues it. Loop goroutine, after
// the call was accepted; takes r.mu.
func (r *run) dispatch(c *child) {
	r.pending.Add(1)
	r.mu.Lock()
	adm := r.gate.enter(c)
	started := adm == admitted && r.startLocked(c)
	if adm == admitted && !started {
		r.gate.free++ // the run is stopping: give the slot back
	}
	r.mu.Unlock()
	switch {
	case started:
		r.launch(c)
	case adm != queued:
		r.drop(c)
	}
}

// startLocked marks c started and emits its agent.start, unless the run is
// stopping (then no child may start). It runs on the loop goroutine
// (dispatch) or on the goroutine that ended the child whose slot c takes (a
// sibling child's goroutine, or the watchdog timer), with r.mu held: the
// caller has just given c a slot, so granting the slot and emitting the
// start are one step and agent.start events come in the gate's FIFO order.
func (r *run) startLocked(c *child) bool {
	if r.stopping {
		return false
	}
	c.startedAt = r.sched.Now()
	r.emitLocked(c.event(EventAgentStart))
	return true
}

// event is an agent.start or agent.end of c with the fields both share.
func (c *child) event(t EventType) Event {
	return Event{Type: t, AgentID: c.req.AgentID, Seq: c.req.Seq, Label: c.req.Label, Phase: c.req.Phase, Model: c.req.Model}
}

// launch runs a started child's provider on a goroutine of its own. It is
// called by whoever started c (startLocked's callers), after releasing r.mu,
// except when the starter is a child goroutine: that one runs c itself
// (runChildren).
func (r *run) launch(c *child) {
	r.goroutines.Add(1)
	r.sched.Go(func() { r.runChildren(c) })
}

// runChildren runs c, then each child that ending the previous one handed
// this goroutine (the oldest queued child takes the slot it freed), until
// none is handed over. A fan-out of thousands then runs on as many
// goroutines as it has slots, instead of starting, and growing the stack
// of, one goroutine per child.
func (r *run) runChildren(c *child) {
	defer r.goroutineDone()
	for c != nil {
		c = r.runChild(c)
	}
}

// drop ends a child that never started because the run is stopping: it
// emits nothing (there was no agent.start) but counts as cancelled, so the
// counts add up to agentsSpawned. Its promise stays pending; the run is over.
// Loop goroutine (dispatch, shutdown); takes r.mu.
func (r *run) drop(c *child) {
	r.mu.Lock()
	r.counts.Cancelled++
	r.mu.Unlock()
	c.enqueue(func(*sandbox.Runtime) error { return nil })
	r.childEnded()
}

// runChild is the host side of one started child, on a child goroutine
// (runChildren). The child holds its slot from its agent.start until it is
// ended — by this goroutine when the provider returns, or by the watchdog
// timer when the provider has not returned CancelGrace after ctx was done —
// and finish passes the slot on at that moment. A provider that ignores its
// context therefore keeps this goroutine, never a slot. It returns the
// child that took the slot, which this goroutine must run next.
func (r *run) runChild(c *child) *child {
	ctx := r.childCtx
	if r.cfg.ChildContext != nil {
		ctx = r.cfg.ChildContext(ctx, c.req)
	}
	var cancel context.CancelFunc = func() {}
	if c.req.Timeout > 0 {
		ctx, cancel = r.sched.WithTimeout(ctx, c.req.Timeout, errChildTimeout)
	}
	// The watchdog ends the child for it if the provider does not return
	// within CancelGrace of ctx being done.
	var stopDog func() bool
	stopWatch := r.sched.AfterFunc(ctx, func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if !c.ended {
			stopDog = r.sched.AfterTime(r.cfg.CancelGrace, func() { r.abandon(c, ctx) })
		}
	})

	res, perr := r.callProvider(ctx, c.req)
	stopWatch()
	r.mu.Lock()
	if stopDog != nil {
		stopDog()
	}
	r.mu.Unlock()
	cancel()

	if perr != nil {
		// Fail the run before the child's end reaches the loop, so the
		// script never sees a broken provider's child as an ordinary null.
		r.fail(perr)
		return r.finish(c, outcome{status: agentapi.StatusFailed, failure: agentapi.FailureTaskFailed, err: perr.Error()})
	}
	return r.finish(c, r.classify(ctx, c, res))
}

// errChildTimeout is the cause of a child context whose own timeout passed.
var errChildTimeout = errors.New("agent timeout")

// goroutineDone marks a child goroutine as returned, closing drained when it
// was the last one of a run that has ended. Child goroutine, deferred.
func (r *run) goroutineDone() {
	if r.goroutines.Add(-1) == 0 && r.ended.Load() {
		r.closeDrained()
	}
}

// passSlotLocked gives an ended child's slot to the oldest queued child and
// starts it (its agent.start follows the ended child's agent.end), or
// returns the slot to the gate. Once the run is stopping the slot just goes
// back: shutdown drops whoever waits. It runs where finish runs (a child
// goroutine or the watchdog timer) with r.mu held; the caller must run or
// launch the child returned, after unlocking.
func (r *run) passSlotLocked() *child {
	if r.stopping {
		r.gate.free++
		return nil
	}
	next := r.gate.release()
	if next != nil {
		r.startLocked(next)
	}
	return next
}

// callProvider runs the provider, turning a panic or an error into a fatal
// error for the run. Child goroutine; holds no lock (the provider may take
// as long as it likes).
func (r *run) callProvider(ctx context.Context, req agentapi.Request) (res agentapi.Result, err *wferr.Error) {
	name := r.cfg.Provider.Name()
	defer func() {
		if p := recover(); p != nil {
			buf := make([]byte, 2048)
			buf = buf[:stdruntime.Stack(buf, false)]
			err = wferr.New(wferr.AgentResult, "the %q provider panicked while running agent %s: %v\n%s", name, req.AgentID, p, buf)
		}
	}()
	res, e := r.cfg.Provider.Run(ctx, req)
	if e != nil {
		if we, ok := wferr.As(e); ok && (we.Code == wferr.AgentStart || we.Code == wferr.AgentResult || we.Code == wferr.UnsupportedOption) {
			return res, we
		}
		return res, wferr.Wrap(wferr.AgentStart, e, "the %q provider could not run agent %s: %v", name, req.AgentID, e)
	}
	if !res.Status.Valid() {
		return res, wferr.New(wferr.AgentResult, "the %q provider returned status %q for agent %s; a provider must return completed, failed, timed_out or cancelled", name, res.Status, req.AgentID)
	}
	return res, nil
}

// classify turns a provider result into the child's outcome: a child whose
// own deadline passed is timed_out, a completed schema call is validated
// again here so every provider is held to the same contract. Child
// goroutine; holds no lock.
func (r *run) classify(ctx context.Context, c *child, res agentapi.Result) outcome {
	o := outcome{status: res.Status, failure: res.Failure, err: res.Error, note: res.Note, usage: res.Usage, worktree: res.Worktree}
	if res.Status == agentapi.StatusCompleted {
		if c.schema == nil {
			o.text = res.Text
			return o
		}
		raw := res.Output
		if len(bytes.TrimSpace(raw)) == 0 {
			raw = json.RawMessage(schema.StripFences(res.Text))
		}
		if err := c.schema.Validate(raw); err != nil {
			return outcome{status: agentapi.StatusFailed, failure: agentapi.FailureInvalidOutput,
				err: "the answer does not match the schema: " + err.Error(), note: res.Note, usage: res.Usage, worktree: res.Worktree}
		}
		o.output = raw
		return o
	}
	if context.Cause(ctx) == errChildTimeout && res.Status != agentapi.StatusTimedOut {
		o.status, o.failure = agentapi.StatusTimedOut, agentapi.FailureTimeout
		o.err = fmt.Sprintf("the agent did not finish within its timeout of %s", c.req.Timeout)
	}
	if o.failure == "" {
		o.failure = defaultFailure(o.status)
	}
	if o.err == "" {
		o.err = "the agent ended as " + string(o.status)
	}
	return o
}

func defaultFailure(s agentapi.Status) agentapi.FailureKind {
	switch s {
	case agentapi.StatusTimedOut:
		return agentapi.FailureTimeout
	case agentapi.StatusCancelled:
		return agentapi.FailureCancelled
	default:
		return agentapi.FailureTaskFailed
	}
}

// abandon ends a child whose provider did not return within the grace after
// its context was done. Its late result will be dropped. The watchdog
// timer's goroutine; takes r.mu (in finish).
func (r *run) abandon(c *child, ctx context.Context) {
	o := outcome{status: agentapi.StatusCancelled, failure: agentapi.FailureCancelled,
		err: "the provider did not stop within the cancel grace; its result will be dropped"}
	if context.Cause(ctx) == errChildTimeout {
		o.status, o.failure = agentapi.StatusTimedOut, agentapi.FailureTimeout
		o.err = fmt.Sprintf("the agent did not finish within its timeout of %s", c.req.Timeout)
	}
	if next := r.finish(c, o); next != nil {
		r.launch(next)
	}
}

// finish ends c exactly once: tallies it, emits agent.end, passes its slot
// on and hands the outcome to the loop. It runs on c's goroutine when the
// provider returns, or on the watchdog timer's (abandon); it takes r.mu. A
// second call (the provider returning after the watchdog ended the child)
// is dropped. It returns the child that took c's slot, already started: the
// caller must run it (runChildren) or launch it.
func (r *run) finish(c *child, o outcome) *child {
	r.mu.Lock()
	if c.ended {
		r.mu.Unlock()
		return nil
	}
	c.ended = true
	o.err, o.note = capNote(o.err), capNote(o.note)
	switch o.status {
	case agentapi.StatusCompleted:
		r.counts.Completed++
	case agentapi.StatusFailed:
		r.counts.Failed++
	case agentapi.StatusTimedOut:
		r.counts.TimedOut++
	case agentapi.StatusCancelled:
		r.counts.Cancelled++
	}
	r.usage = r.usage.Add(o.usage)
	if o.worktree != nil {
		r.worktrees = append(r.worktrees, KeptWorktree{AgentID: c.req.AgentID, Worktree: *o.worktree})
	}
	ev := c.event(EventAgentEnd)
	ev.Outcome, ev.Note, ev.Usage, ev.Worktree = o.status, o.note, ptr(o.usage), o.worktree
	ev.DurationMs = ptr(r.sched.Now().Sub(c.startedAt).Milliseconds())
	if o.status != agentapi.StatusCompleted {
		ev.Failure, ev.Error = o.failure, o.err
	}
	r.emitLocked(ev)
	next := r.passSlotLocked()
	r.mu.Unlock()

	if r.cfg.Journal != nil {
		r.journalEnd(c, o) // on disk before the script can see it
	} else {
		c.enqueue(func(rt *sandbox.Runtime) error { return r.deliver(rt, c, o) })
	}
	r.childEnded()
	return next
}

// deliver resolves the agent() promise with the child's value. Loop
// goroutine, run by the loop with the run's VM.
//
// Resolving runs the script's continuation at once (goja drains its
// microtasks inside resolve), so agentFunc may be re-entered from inside
// deliver: the continuation can call agent() again, which dispatches a new
// child before deliver returns. Nothing deliver reads after resolving may
// change under it.
func (r *run) deliver(rt *sandbox.Runtime, c *child, o outcome) error {
	vm := rt.VM
	var result goja.Value = goja.Null()
	if o.status == agentapi.StatusCompleted {
		if c.schema != nil {
			v, err := rt.ParseJSON(o.output)
			if err != nil {
				return wferr.Wrap(wferr.AgentResult, err, "agent %s returned JSON the VM cannot read: %v", c.req.AgentID, err)
			}
			result = v
		} else {
			result = vm.ToValue(o.text)
		}
	}
	if c.form == formText {
		return c.resolve(result)
	}
	env := vm.NewObject()
	_ = env.Set("result", result)
	_ = env.Set("status", string(o.status))
	_ = env.Set("agentId", c.req.AgentID)
	_ = env.Set("label", c.req.Label)
	u := vm.NewObject()
	_ = u.Set("inputTokens", o.usage.InputTokens)
	_ = u.Set("outputTokens", o.usage.OutputTokens)
	_ = u.Set("costUSD", o.usage.CostUSD)
	_ = env.Set("usage", u)
	if o.status != agentapi.StatusCompleted {
		_ = env.Set("error", o.err)
		_ = env.Set("failure", string(o.failure))
	}
	if o.worktree != nil {
		wt := vm.NewObject()
		_ = wt.Set("path", o.worktree.Path)
		_ = wt.Set("branch", o.worktree.Branch)
		_ = env.Set("worktree", wt)
	}
	return c.resolve(env)
}
