package temporal

import (
	"fmt"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/internal/wferr"
)

// MaxAgentsPerRun is the most agents one run on Temporal may start. A
// history holds at most 51,200 events and 50 MB; an agent costs at most
// HistoryEventsPerAgent events (its activity's three, a workflow task's
// three when it ends alone, and its timeout's timer) and, with every
// payload over PayloadInline bytes in the payload store, at most about
// 2 × PayloadInline + 1 KiB of history. The ceiling keeps a run of this
// many agents under both limits with room for the run's own events (the
// end-to-end test measures a real history against it; docs/scale-out.md).
const MaxAgentsPerRun = 4000

// HistoryEventsPerAgent is the most history events one agent adds: its
// activity's scheduled, started and completed, the workflow task its
// completion wakes (scheduled, started, completed) and its timeout's timer
// (started, then fired or cancelled).
const HistoryEventsPerAgent = 8

// checkCeiling refuses a run that may start more agents than a history
// holds.
func checkCeiling(maxAgents int) error {
	if maxAgents > MaxAgentsPerRun {
		return wferr.New(wferr.InvalidRequest,
			"maxTotalAgents %d is above what one run on Temporal can hold (%d agents: a workflow history keeps at most 51,200 events); lower maxTotalAgents, or split the work into several runs",
			maxAgents, MaxAgentsPerRun)
	}
	return nil
}

// capPlan keeps a plan whose agent cap comes from the worker's engine
// (not from the request, which checkCeiling refused) under the ceiling,
// saying so in a warning.
func capPlan(p *engine.RunPlan) {
	if p.MaxAgents > MaxAgentsPerRun {
		p.Warnings = append(p.Warnings, fmt.Sprintf("the engine's agent cap %d is above what one run on Temporal can hold; using %d", p.MaxAgents, MaxAgentsPerRun))
		p.MaxAgents = MaxAgentsPerRun
	}
}
