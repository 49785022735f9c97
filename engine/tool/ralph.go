package tool

import (
	"context"
	"fmt"
	"strings"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/ralph"
	"github.com/wfrun/wfrun/internal/human"
)

// ralph is the ralph tool: the Ralph loop on one objective, in the
// foreground, with progress after each round's events.
func (s *Set) ralph(ctx context.Context, in RalphInput, progress func(Progress)) Result {
	if in.ResumeFromRunId != "" {
		if _, ok := s.eng.Info(s.opts.Owner, in.ResumeFromRunId); !ok {
			return s.unknownRun(in.ResumeFromRunId)
		}
	}
	run, err := ralph.Start(ctx, s.eng, ralph.Options{Objective: in.Objective, MaxRounds: in.MaxRounds, BudgetTokens: in.BudgetTokens,
		Parent: s.opts.Owner, ResumeFromRunId: in.ResumeFromRunId, OnEvent: s.sink(newTracker(progress))})
	if err != nil {
		return s.renderResult(engine.FailedResult("", err), rendering{precheck: true, name: "ralph"})
	}
	s.track(run)
	res, err := ralph.Decode(run.Wait())
	if res.Workflow.StopReason != engine.StopCompleted {
		return s.renderResult(res.Workflow, rendering{name: "ralph"})
	}
	return Result{Text: ralphText(res, err), IsError: err != nil, Structured: res, RunID: res.RunID}
}

// ralphText renders a loop's ending for the model: the ending, the rounds,
// why it stopped, and the last good handoff.
func ralphText(res ralph.Result, err error) string {
	var b strings.Builder
	fmt.Fprintf(&b, "the Ralph loop %s ended %s after %s", res.RunID, res.Ending, human.Plural(res.Rounds, "round", "rounds"))
	switch {
	case err != nil:
		fmt.Fprintf(&b, ": %v", err)
	case res.Reason != "":
		fmt.Fprintf(&b, ": %s", res.Reason)
	}
	b.WriteString(".\n")
	if h := res.Handoff; h != nil {
		fmt.Fprintf(&b, "Last handoff (%s): %s\n", h.Status, h.Summary)
		for _, e := range h.Evidence {
			b.WriteString("  evidence: " + e + "\n")
		}
		for _, n := range h.NextSteps {
			b.WriteString("  next: " + n + "\n")
		}
		if h.Blocker != "" {
			b.WriteString("  blocker: " + h.Blocker + "\n")
		}
	} else {
		b.WriteString("No round handed off.\n")
	}
	if res.Ending == ralph.EndBudgetLimited || res.Ending == ralph.EndRoundFailed {
		fmt.Fprintf(&b, "To go on, call ralph again with the same objective and resumeFromRunId %q (and a larger maxRounds or budgetTokens if that was the limit).\n", res.RunID)
	}
	return b.String()
}
