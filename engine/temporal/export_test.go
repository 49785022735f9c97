package temporal

import "github.com/wfrun/wfrun/engine"

// SetTaskHook sets the hook every workflow task that starts the workflow
// function runs (a poison script's stand-in: no real script can panic a
// workflow task), and returns the function that unsets it.
func SetTaskHook(f func(req engine.WorkflowStartRequest)) (unset func()) {
	taskHook.Store(&f)
	return func() { taskHook.Store(nil) }
}

// PayloadRefs adds the payload keys m refers to, at any depth.
var PayloadRefs = payloadRefs

// RunsQuery is the visibility query of a RunFilter.
var RunsQuery = runsQuery
