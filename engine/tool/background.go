package tool

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/internal/human"
)

// cancelWait bounds how long workflow_cancel waits for the run to settle
// after cancelling it: the cancel grace of its sub-agents, and some.
const cancelWait = 10 * time.Second

// RunList is the structured content of workflow_list.
type RunList struct {
	Runs []engine.RunInfo `json:"runs"`
}

// unknownRun is the error for a run id the owner cannot see.
func (s *Set) unknownRun(id string) Result {
	return inputError(errorf(engine.CodeInvalidRequest,
		"no run %q is known here: it was never started by you, or it finished long enough ago to be dropped; workflow_list shows your runs", id))
}

// status is workflow_status.
func (s *Set) status(ctx context.Context, in RunIDInput, _ func(Progress)) Result {
	if s.opts.RemoteRuns != nil {
		info, ok, err := s.opts.RemoteRuns.Info(ctx, s.opts.Owner, in.RunID)
		if r, done := s.remoteLookup(in.RunID, ok, err); done {
			return r
		}
		return Result{Text: statusLine(info) + logBlock(info.Logs), Structured: info, RunID: info.RunID}
	}
	info, ok := s.eng.Info(s.opts.Owner, in.RunID)
	if !ok {
		return s.unknownRun(in.RunID)
	}
	return Result{Text: statusLine(info) + logBlock(info.Logs), Structured: info, RunID: info.RunID}
}

// wait is workflow_wait: the result once the run is done, else its status
// when the wait's time is up or the call is cancelled.
func (s *Set) wait(ctx context.Context, in WaitInput, progress func(Progress)) Result {
	var err error
	if in.TimeoutMs, err = waitTimeout(WorkflowWait, in.TimeoutMs); err != nil {
		return inputError(err)
	}
	if s.opts.RemoteRuns != nil {
		return s.remoteWait(ctx, in, progress)
	}
	run, ok := s.eng.Lookup(s.opts.Owner, in.RunID)
	if !ok {
		return s.unknownRun(in.RunID)
	}
	if track := newTracker(progress); track != nil {
		report := func() {
			if info, ok := s.eng.Info(s.opts.Owner, run.ID()); ok {
				track.snapshot(info)
			}
		}
		// The registry sees each event before the watchers do, so a
		// snapshot taken on an event includes it.
		defer s.watch(run.ID(), func(ev engine.Event) {
			switch ev.Type {
			case engine.EventPhase, engine.EventLog, engine.EventAgentStart, engine.EventAgentEnd:
				report()
			}
		})()
		report()
	}
	timer := time.NewTimer(time.Duration(in.TimeoutMs) * time.Millisecond)
	defer timer.Stop()
	select {
	case <-run.Done():
		how := rendering{name: run.Meta().Name}
		if info, ok := s.eng.Info(s.opts.Owner, run.ID()); ok {
			how.logs = info.Logs
		}
		return s.renderResult(run.Wait(), how)
	case <-timer.C:
	case <-ctx.Done():
	}
	info, ok := s.eng.Info(s.opts.Owner, run.ID())
	if !ok {
		return s.unknownRun(in.RunID)
	}
	return Result{Text: statusLine(info) + fmt.Sprintf("\nStill running after waiting %s s; call workflow_wait again, or workflow_cancel to stop it.", seconds(in.TimeoutMs)) + logBlock(info.Logs),
		Structured: info, RunID: info.RunID}
}

// cancel is workflow_cancel.
func (s *Set) cancel(ctx context.Context, in CancelInput, _ func(Progress)) Result {
	if s.opts.RemoteRuns != nil {
		return s.remoteCancel(ctx, in)
	}
	run, ok := s.eng.Lookup(s.opts.Owner, in.RunID)
	if !ok {
		return s.unknownRun(in.RunID)
	}
	if _, done := run.Result(); !done {
		reason := strings.TrimSpace(in.Reason)
		if reason == "" {
			reason = "cancelled with workflow_cancel"
		}
		run.Cancel(reason)
		timer := time.NewTimer(cancelWait)
		select {
		case <-run.Done():
		case <-timer.C:
		case <-ctx.Done():
		}
		timer.Stop()
	} else if info, ok := s.eng.Info(s.opts.Owner, run.ID()); ok {
		return Result{Text: statusLine(info) + "\nIt had already finished; nothing was cancelled.", Structured: info, RunID: info.RunID}
	}
	info, ok := s.eng.Info(s.opts.Owner, run.ID())
	if !ok {
		return s.unknownRun(in.RunID)
	}
	return Result{Text: statusLine(info), Structured: info, RunID: info.RunID}
}

// list is workflow_list.
func (s *Set) list(ctx context.Context, in ListInput, _ func(Progress)) Result {
	runs := s.eng.Runs(s.opts.Owner)
	if s.opts.RemoteRuns != nil {
		var err error
		if runs, err = s.opts.RemoteRuns.List(ctx, s.opts.Owner); err != nil {
			return Result{IsError: true, Text: fmt.Sprintf("the runs could not be listed: %v; try again", err)}
		}
	}
	if len(runs) == 0 {
		return Result{Text: "No runs yet.", Structured: RunList{Runs: []engine.RunInfo{}}}
	}
	lines := make([]string, len(runs))
	for i, in := range runs {
		lines[i] = statusLine(in)
	}
	return Result{Text: strings.Join(lines, "\n"), Structured: RunList{Runs: runs}}
}

// statusLine renders a run on one line:
//
//	workflow "audit" (wf_…, background) is running: phase Verify · agents 2 running, 5 done, 1 failed · 12.3k tokens · 41.0 s
func statusLine(in engine.RunInfo) string {
	var b strings.Builder
	kind := "foreground"
	if in.Background {
		kind = "background"
	}
	fmt.Fprintf(&b, "workflow %q (%s, %s) ", in.Meta.Name, in.RunID, kind)
	switch in.Status {
	case engine.RunRunning:
		b.WriteString("is running")
	case engine.RunCompleted:
		b.WriteString("completed")
	case engine.RunCancelled:
		b.WriteString("was cancelled")
	case engine.RunFailed:
		b.WriteString("failed with " + string(in.ErrorCode))
	case engine.RunAbandoned:
		b.WriteString("was abandoned")
	}
	b.WriteString(": ")
	if in.Phase != "" {
		fmt.Fprintf(&b, "phase %s · ", in.Phase)
	}
	fmt.Fprintf(&b, "agents %d running, %d done, %d failed", in.Agents.Running, in.Agents.Done, in.Agents.Failed)
	if in.Agents.Cancelled > 0 {
		fmt.Fprintf(&b, ", %d cancelled", in.Agents.Cancelled)
	}
	fmt.Fprintf(&b, " · %s tokens · %s s", human.Count(in.Usage.InputTokens+in.Usage.OutputTokens), seconds(in.ElapsedMs))
	if in.Error != "" && (in.Status == engine.RunFailed || in.Status == engine.RunAbandoned) {
		b.WriteString(" · " + in.Error)
	}
	return b.String()
}

// remoteLookup is the result of a remote look-up that found nothing or
// failed (done true), or done false to go on.
func (s *Set) remoteLookup(id string, found bool, err error) (Result, bool) {
	if err != nil {
		return Result{IsError: true, Text: fmt.Sprintf("run %s could not be looked up: %v; try again", id, err), RunID: id}, true
	}
	if !found {
		return s.unknownRun(id), true
	}
	return Result{}, false
}

// remoteWait is workflow_wait over Options.RemoteRuns.
func (s *Set) remoteWait(ctx context.Context, in WaitInput, progress func(Progress)) Result {
	wctx, cancel := context.WithTimeout(ctx, time.Duration(in.TimeoutMs)*time.Millisecond)
	defer cancel()
	logs := &logCollector{}
	res, done, found, err := s.opts.RemoteRuns.Wait(wctx, s.opts.Owner, in.RunID, logs.wrap(s.sink(newTracker(progress))))
	if r, stop := s.remoteLookup(in.RunID, found, err); stop {
		return r
	}
	if done {
		how := rendering{logs: logs.lines()}
		if info, ok, err := s.opts.RemoteRuns.Info(context.WithoutCancel(ctx), s.opts.Owner, in.RunID); err == nil && ok {
			how.name = info.Meta.Name
		}
		return s.renderResult(res, how)
	}
	info, ok, err := s.opts.RemoteRuns.Info(context.WithoutCancel(ctx), s.opts.Owner, in.RunID)
	if r, stop := s.remoteLookup(in.RunID, ok, err); stop {
		return r
	}
	return Result{Text: statusLine(info) + fmt.Sprintf("\nStill running after waiting %s s; call workflow_wait again, or workflow_cancel to stop it.", seconds(in.TimeoutMs)) + logBlock(info.Logs),
		Structured: info, RunID: info.RunID}
}

// remoteCancel is workflow_cancel over Options.RemoteRuns.
func (s *Set) remoteCancel(ctx context.Context, in CancelInput) Result {
	info, ok, err := s.opts.RemoteRuns.Info(ctx, s.opts.Owner, in.RunID)
	if r, stop := s.remoteLookup(in.RunID, ok, err); stop {
		return r
	}
	if info.Status != engine.RunRunning {
		return Result{Text: statusLine(info) + "\nIt had already finished; nothing was cancelled.", Structured: info, RunID: info.RunID}
	}
	if _, err := s.opts.RemoteRuns.Cancel(ctx, s.opts.Owner, in.RunID); err != nil {
		return Result{IsError: true, Text: fmt.Sprintf("run %s could not be cancelled: %v; try again", in.RunID, err), RunID: in.RunID}
	}
	wctx, cancel := context.WithTimeout(ctx, cancelWait)
	defer cancel()
	_, _, _, _ = s.opts.RemoteRuns.Wait(wctx, s.opts.Owner, in.RunID, nil)
	if info, ok, err = s.opts.RemoteRuns.Info(context.WithoutCancel(ctx), s.opts.Owner, in.RunID); err != nil || !ok {
		return Result{Text: fmt.Sprintf("run %s was cancelled.", in.RunID), RunID: in.RunID}
	}
	return Result{Text: statusLine(info), Structured: info, RunID: info.RunID}
}
