package engine

import (
	"context"
	"sync"

	"github.com/wfrun/wfrun/meta"
	"github.com/wfrun/wfrun/runtime"
)

// Run is one started workflow run. Its methods are safe for concurrent use.
type Run struct {
	id       string
	meta     meta.WorkflowMeta
	warnings []string
	emit     func(Event)
	cancel   context.CancelCauseFunc

	done   chan struct{}
	once   sync.Once
	result WorkflowResult
}

func newRun(id string, m meta.WorkflowMeta, warnings []string) *Run {
	return &Run{id: id, meta: m, warnings: warnings, done: make(chan struct{})}
}

// ID returns the run's id, "wf_" followed by 16 hex digits.
func (r *Run) ID() string { return r.id }

// Meta returns the run's validated meta.
func (r *Run) Meta() meta.WorkflowMeta { return r.meta }

// Warnings returns the pre-check warnings (unknown meta fields, lowered caps).
func (r *Run) Warnings() []string { return append([]string(nil), r.warnings...) }

// Done returns a channel that is closed when the run has settled.
func (r *Run) Done() <-chan struct{} { return r.done }

// Wait blocks until the run settles and returns its result. It may be
// called any number of times, from any goroutine.
func (r *Run) Wait() WorkflowResult {
	<-r.done
	return r.result
}

// Result returns the result and true if the run has settled, or false.
func (r *Run) Result() (WorkflowResult, bool) {
	select {
	case <-r.done:
		return r.result, true
	default:
		return WorkflowResult{}, false
	}
}

// Cancel cancels the run with a reason shown in its error. It is
// idempotent and returns at once; Wait then reports stopReason "cancelled"
// unless the run had already settled. No child starts after Cancel, and
// every running child's context is cancelled.
func (r *Run) Cancel(reason string) {
	r.cancel(runtime.CancelledError(reason))
}

func (r *Run) settle(res WorkflowResult) {
	r.once.Do(func() {
		r.result = res
		close(r.done)
	})
}
