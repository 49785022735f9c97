package tool

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/wfrun/wfrun/engine"
)

// scriptName names the tool's scripts in stack traces.
const scriptName = "workflow.js"

// Started is the structured content of a background start.
type Started struct {
	RunID string `json:"runId"`
}

// workflow is the workflow tool: run a script in the foreground, or start
// it in the background.
func (s *Set) workflow(ctx context.Context, in WorkflowInput, progress func(Progress)) Result {
	src, file, err := s.source(in)
	if err != nil {
		return s.renderResult(engine.FailedResult("", err), rendering{precheck: true})
	}
	name := scriptName
	if file != "" {
		name = filepath.Base(file)
	}
	req := engine.WorkflowStartRequest{
		Script: src, ScriptName: name, Meta: in.Meta, Args: in.Args, Parent: s.opts.Owner,
		MaxTotalAgents: in.MaxTotalAgents, BudgetTokens: in.BudgetTokens, TimeoutMs: in.TimeoutMs,
		Background: in.Background, ResumeFromRunId: in.ResumeFromRunId,
	}
	how := rendering{script: src, file: file}
	// The run's last log lines end its result.
	logs := &logCollector{}
	if s.opts.Remote != nil {
		return s.remote(ctx, req, in, how, progress)
	}
	if in.ResumeFromRunId != "" {
		if _, ok := s.eng.Info(s.opts.Owner, in.ResumeFromRunId); !ok {
			return s.unknownRun(in.ResumeFromRunId) // another owner's run is not there to resume
		}
	}
	if s.opts.BeforeRun != nil {
		s.opts.BeforeRun(req)
	}
	if in.Background {
		// The run outlives the call: only workflow_cancel or the engine's
		// Close end it.
		req.OnEvent = s.sink(nil)
		run, err := s.eng.Start(context.WithoutCancel(ctx), req)
		if err != nil {
			how.precheck = true
			return s.renderResult(engine.FailedResult("", err), how)
		}
		s.track(run)
		id := run.ID()
		return Result{
			Text: fmt.Sprintf("workflow %q started in the background as %s. workflow_wait {\"runId\":%q} returns its result; workflow_status shows its progress; workflow_cancel stops it.",
				run.Meta().Name, id, id) + s.scriptLine(id, how),
			Structured: Started{RunID: id},
			RunID:      id,
		}
	}
	req.OnEvent = logs.wrap(s.sink(newTracker(progress)))
	run, err := s.eng.Start(ctx, req)
	if err != nil {
		how.precheck = true
		return s.renderResult(engine.FailedResult("", err), how)
	}
	s.track(run)
	how.name = run.Meta().Name
	res := run.Wait()
	how.logs = logs.lines()
	return s.renderResult(res, how)
}

// source is the script a workflow call runs, by Claude Code's precedence:
// scriptPath (a file of the workspace), then script, then name (a saved
// workflow). file is the script's file, "" for an inline script.
func (s *Set) source(in WorkflowInput) (src, file string, err error) {
	switch {
	case in.ScriptPath != "":
		return s.readFile(in.ScriptPath)
	case in.Script != "":
		return in.Script, "", nil
	case in.Name != "":
		file, src, err := s.eng.LoadWorkflow(in.Name)
		return src, file, err
	}
	return "", "", errorf(engine.CodeInvalidRequest, "the workflow tool needs a script: pass script (the JavaScript source), scriptPath (a .js file of the workspace) or name (a saved workflow)")
}

func (s *Set) readFile(path string) (src, file string, err error) {
	file, src, err = s.eng.ReadWorkflowFile(path)
	return src, file, err
}

// logCollector keeps the last log lines of one run for its result.
type logCollector struct {
	mu   sync.Mutex
	tail engine.LogTail
}

// wrap returns next, observing the run's log events first.
func (c *logCollector) wrap(next func(engine.Event)) func(engine.Event) {
	return func(ev engine.Event) {
		if ev.Type == engine.EventLog {
			c.mu.Lock()
			c.tail.Add(ev.Message)
			c.mu.Unlock()
		}
		next(ev)
	}
}

func (c *logCollector) lines() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tail.Lines()
}

// remote runs the workflow call through Options.Remote, in the
// foreground: a background run or a resume would need a run this engine
// holds, which a remote run is not.
func (s *Set) remote(ctx context.Context, req engine.WorkflowStartRequest, in WorkflowInput, how rendering, progress func(Progress)) Result {
	if in.ResumeFromRunId != "" && s.opts.RemoteRuns == nil {
		return Result{IsError: true, Text: "resumeFromRunId is not available here: this server runs workflows on a Temporal cluster, where a run replays from the cluster's history by itself and never needs resuming; call workflow without resumeFromRunId"}
	}
	if in.ResumeFromRunId != "" {
		if _, ok, err := s.opts.RemoteRuns.Info(ctx, s.opts.Owner, in.ResumeFromRunId); err != nil || !ok {
			if r, stop := s.remoteLookup(in.ResumeFromRunId, ok, err); stop {
				return r
			}
		}
	}
	if in.Background && s.opts.RemoteRuns == nil {
		return Result{IsError: true, Text: "background is not available here: this server runs workflows on a Temporal cluster without a place for runs that outlive a call, so a run is waited for in the call that starts it; call workflow without background"}
	}
	if s.opts.BeforeRun != nil {
		s.opts.BeforeRun(req)
	}
	if in.Background {
		id, err := s.opts.RemoteRuns.Start(context.WithoutCancel(ctx), req)
		if err != nil {
			how.precheck = true
			return s.renderResult(engine.FailedResult("", err), how)
		}
		name := ""
		if c := s.eng.Check(req); c.Meta != nil {
			name = c.Meta.Name
		}
		return Result{
			Text: fmt.Sprintf("workflow %q started in the background as %s. workflow_wait {\"runId\":%q} returns its result; workflow_status shows its progress; workflow_cancel stops it.",
				name, id, id) + s.scriptLine(id, how),
			Structured: Started{RunID: id},
			RunID:      id,
		}
	}
	logs := &logCollector{}
	res, err := s.opts.Remote(ctx, req, logs.wrap(s.sink(newTracker(progress))))
	if err != nil {
		how.precheck = true
		return s.renderResult(engine.FailedResult("", err), how)
	}
	how.logs = logs.lines()
	if c := s.eng.Check(req); c.Meta != nil { // the name the result's text shows (the script is compiled, and cached)
		how.name = c.Meta.Name
	}
	return s.renderResult(res, how)
}
