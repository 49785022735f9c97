package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/subagent"
	"github.com/wfrun/wfrun/internal/human"
)

// Name names one of the tools.
type Name string

// The tools.
const (
	Workflow       Name = "workflow"        // run a script
	Agent          Name = "agent"           // run one sub-agent
	WorkflowStatus Name = "workflow_status" // a background run's progress
	WorkflowWait   Name = "workflow_wait"   // wait for a background run
	WorkflowCancel Name = "workflow_cancel" // cancel a background run
	WorkflowList   Name = "workflow_list"   // the owner's recent runs
	Ralph          Name = "ralph"           // the Ralph loop on one objective
)

// Names lists every tool in the order Definitions gives them.
func Names() []Name {
	return []Name{Workflow, Agent, WorkflowStatus, WorkflowWait, WorkflowCancel, WorkflowList, Ralph}
}

// DefaultMaxResultChars is how much of a run's value the text of a result
// shows before it is cut with a notice.
const DefaultMaxResultChars = 50_000

// Options configures a Set. The zero value is usable, with the owner "tool".
type Options struct {
	// Owner owns every run the set starts (WorkflowStartRequest.Parent) and
	// is the only owner whose runs the background tools see.
	Owner string
	// Personas are listed in the workflow and agent tools' descriptions as
	// the agentType names the host's provider knows.
	Personas []Persona
	// SavedWorkflows end the workflow tool's description: the names its
	// name parameter (and a script's workflow(name)) may use. nil lists
	// the engine's (Engine.SavedWorkflows) as they are when New is called;
	// an empty, non-nil list lists none.
	SavedWorkflows []SavedWorkflow
	// MaxResultChars caps the value shown in a result's text; 0 means
	// DefaultMaxResultChars.
	MaxResultChars int
	// OnEvent, if set, receives every event of every run the set starts.
	// It is called from the runs' goroutines and must not block for long.
	OnEvent func(engine.Event)
	// BeforeRun, if set, is called with each workflow request the set is
	// about to start (after its input was read), for hosts that show the
	// script (wfrun agent --print-script).
	BeforeRun func(engine.WorkflowStartRequest)
	// Subagents, if set, adds the continuable sub-agent tools
	// (SubagentNames), whose children belong to Owner.
	Subagents *subagent.Manager
	// Remote, if set, runs the workflow tool's runs somewhere else than in
	// the engine — on a Temporal cluster (engine/temporal's Client.Execute)
	// — and returns their results: a failed pre-check as an error, a run
	// as its result. It must hand onEvent the run's events as they come and
	// cancel the run when ctx is done. Background runs and resumeFromRunId
	// need a run this engine holds, and are refused with a sentence; the
	// other tools keep using the engine.
	Remote func(ctx context.Context, req engine.WorkflowStartRequest, onEvent func(engine.Event)) (engine.WorkflowResult, error)
	// RemoteRuns, if set with Remote, holds the remote runs that outlive a
	// call: a background workflow call starts one there, and
	// workflow_status, workflow_wait, workflow_cancel and workflow_list
	// look there instead of in the engine (engine/temporal's Remote).
	RemoteRuns RemoteRuns
}

// RemoteRuns is where Options.Remote's runs live when they outlive the call
// that starts them. A run belongs to the owner that started it; found is
// false for a run the owner does not have.
type RemoteRuns interface {
	// Start starts req and returns its run id without waiting for it.
	Start(ctx context.Context, req engine.WorkflowStartRequest) (runID string, err error)
	// Info is the run's status.
	Info(ctx context.Context, owner, runID string) (info engine.RunInfo, found bool, err error)
	// Wait waits for the run until ctx is done: done is false when ctx
	// ended first (the run goes on). onEvent, if set, gets its events.
	Wait(ctx context.Context, owner, runID string, onEvent func(engine.Event)) (res engine.WorkflowResult, done, found bool, err error)
	// Cancel cancels the run.
	Cancel(ctx context.Context, owner, runID string) (found bool, err error)
	// List is the owner's runs, newest first.
	List(ctx context.Context, owner string) ([]engine.RunInfo, error)
}

// Definition is what a model is shown of one tool.
type Definition struct {
	Name        Name            `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// Result is the outcome of one tool call.
type Result struct {
	// Text is what the model reads.
	Text string
	// IsError is true when the call did not do what it was asked: a run
	// that did not complete, a failed sub-agent, bad input, an unknown run.
	IsError bool
	// Structured is the same outcome as a JSON object: a WorkflowResult,
	// a RunInfo, the agent's envelope, a list of runs, or an error.
	Structured any
	// RunID is the run the call started or looked at, if any.
	RunID string
}

// Progress is a foreground run's state, reported after each event that
// changes it.
type Progress struct {
	RunID   string `json:"runId"`
	Name    string `json:"name"`
	Phase   string `json:"phase,omitempty"`
	Running int    `json:"running"`
	Done    int    `json:"done"`   // agents that completed
	Failed  int    `json:"failed"` // agents that failed, timed out or were cancelled
	Tokens  int64  `json:"tokens"`
	// Log is the latest line the script logged (log(), console.*).
	Log string `json:"log,omitempty"`
	// Step counts the reports of this call: 1, 2, 3, … (MCP wants a
	// progress value that only grows).
	Step int `json:"step"`
}

// Started is the number of agents that have started so far.
func (p Progress) Started() int { return p.Running + p.Done + p.Failed }

// Message renders the progress on one line, e.g.
// "Review · agents 5/8 done, 3 running, 0 failed · 12.3k tokens · log: checked 40 files",
// the log part when the script has logged a line.
func (p Progress) Message() string {
	title := p.Phase
	if title == "" {
		title = p.Name
	}
	m := fmt.Sprintf("%s · agents %d/%d done, %d running, %d failed · %s tokens",
		title, p.Done+p.Failed, p.Started(), p.Running, p.Failed, human.Count(p.Tokens))
	if p.Log != "" {
		m += " · log: " + p.Log
	}
	return m
}

// Set is the tools, bound to one engine and one owner. It is safe for
// concurrent use. It owns no goroutines of its own: a foreground call runs
// on its caller's goroutine, and background runs belong to the engine,
// whose Close cancels and waits for them.
type Set struct {
	eng   *engine.Engine
	opts  Options
	tools []*Tool

	mu       sync.Mutex
	watchers map[string]map[int]func(engine.Event) // runID → listeners (workflow_wait progress)
	nextW    int
	started  map[string]*engine.Run // runs this set started, pruned of settled ones (CancelAll)
}

// Tool is one tool of a Set: its definition and its handler.
type Tool struct {
	def  Definition
	call func(ctx context.Context, input json.RawMessage, progress func(Progress)) Result
}

// newTool is the tool name whose input is an I: its schema is I's, and
// call gets the input decoded, so that the type a model is shown and the
// type a call is read into are one.
func newTool[I any](name Name, desc string, call func(context.Context, I, func(Progress)) Result) *Tool {
	return &Tool{
		def: Definition{Name: name, Description: desc, InputSchema: inputSchema(new(I))},
		call: func(ctx context.Context, input json.RawMessage, progress func(Progress)) Result {
			var in I
			if err := decode(name, input, &in); err != nil {
				return inputError(err)
			}
			return call(ctx, in, progress)
		},
	}
}

// Definition returns the tool's name, description and input schema.
func (t *Tool) Definition() Definition { return t.def }

// Call runs the tool with a JSON input. It never panics on bad input: that
// is a Result with IsError and a sentence naming the field.
func (t *Tool) Call(ctx context.Context, input json.RawMessage) Result {
	return t.call(ctx, input, nil)
}

// New returns the tools for eng, owned by opts.Owner.
func New(eng *engine.Engine, opts Options) *Set {
	if opts.Owner == "" {
		opts.Owner = "tool"
	}
	if opts.MaxResultChars <= 0 {
		opts.MaxResultChars = DefaultMaxResultChars
	}
	s := &Set{eng: eng, opts: opts, watchers: map[string]map[int]func(engine.Event){}, started: map[string]*engine.Run{}}
	s.tools = []*Tool{
		newTool(Workflow, workflowDescription(opts.Personas, savedWorkflows(eng, opts.SavedWorkflows)), s.workflow),
		newTool(Agent, agentDescription(opts.Personas), s.agent),
		newTool(WorkflowStatus, statusDescription, s.status),
		newTool(WorkflowWait, waitDescription, s.wait),
		newTool(WorkflowCancel, cancelDescription, s.cancel),
		newTool(WorkflowList, listDescription, s.list),
		newTool(Ralph, ralphDescription, s.ralph),
	}
	if opts.Subagents != nil {
		s.tools = append(s.tools, subagentTools{m: opts.Subagents, caller: subagent.Caller{Owner: opts.Owner}}.defs()...)
	}
	return s
}

// savedWorkflows is the saved workflows the description lists: opts', or
// the engine's when opts has none.
func savedWorkflows(eng *engine.Engine, saved []SavedWorkflow) []SavedWorkflow {
	if saved != nil {
		return saved
	}
	for _, w := range eng.SavedWorkflows().Workflows {
		saved = append(saved, SavedWorkflow{Name: w.Name, Description: human.FirstLine(w.Description, 200)})
	}
	return saved
}

// Owner returns the owner of the set's runs.
func (s *Set) Owner() string { return s.opts.Owner }

// Engine returns the engine the set starts runs on.
func (s *Set) Engine() *engine.Engine { return s.eng }

// Tools returns the tools in the order of Names(), then SubagentNames()
// when the set has them.
func (s *Set) Tools() []*Tool { return append([]*Tool(nil), s.tools...) }

// Tool returns the tool called name.
func (s *Set) Tool(name Name) (*Tool, bool) {
	for _, t := range s.tools {
		if t.def.Name == name {
			return t, true
		}
	}
	return nil, false
}

// Definitions returns every tool's definition, in the order of Names()
// (then SubagentNames(), when the set has them).
func (s *Set) Definitions() []Definition {
	defs := make([]Definition, len(s.tools))
	for i, t := range s.tools {
		defs[i] = t.def
	}
	return defs
}

// Call runs the tool called name with a JSON input.
func (s *Set) Call(ctx context.Context, name Name, input json.RawMessage) Result {
	return s.CallWithProgress(ctx, name, input, nil)
}

// CallWithProgress is Call with a progress report after every event that
// changes a run the call waits for (the workflow tool in the foreground,
// the agent tool and workflow_wait). progress is called from the run's
// goroutines, one call at a time, and must not block for long.
// Cancelling ctx cancels a foreground run and its sub-agents; a background
// run goes on.
func (s *Set) CallWithProgress(ctx context.Context, name Name, input json.RawMessage, progress func(Progress)) Result {
	t, ok := s.Tool(name)
	if !ok {
		names := make([]string, len(s.tools))
		for i, t := range s.tools {
			names[i] = string(t.def.Name)
		}
		return inputError(errorf(engine.CodeInvalidRequest, "there is no tool %q; the tools are %s", name, listAnd(names)))
	}
	return t.call(ctx, input, progress)
}

// CancelAll cancels every run this set started that is still going, for a
// host whose session ended (no one is left to wait for them). Runs of the
// same owner started by another set (another session sharing the owner)
// go on.
func (s *Set) CancelAll(reason string) {
	s.mu.Lock()
	runs := make([]*engine.Run, 0, len(s.started))
	for _, r := range s.started {
		runs = append(runs, r)
	}
	s.mu.Unlock()
	for _, r := range runs {
		r.Cancel(reason)
	}
}

// track remembers a run the set started, for CancelAll, forgetting the
// ones that have settled.
func (s *Set) track(r *engine.Run) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, run := range s.started {
		if _, done := run.Result(); done {
			delete(s.started, id)
		}
	}
	s.started[r.ID()] = r
}

// Result returns the result of the owner's finished run runID, with its
// whole value: what the MCP resource wfrun://runs/<runId>/result serves.
func (s *Set) Result(runID string) (engine.WorkflowResult, bool) {
	r, ok := s.eng.Lookup(s.opts.Owner, runID)
	if !ok {
		return engine.WorkflowResult{}, false
	}
	return r.Result()
}

// ResultURI is the address of a run's full result as an MCP resource.
func ResultURI(runID string) string { return "wfrun://runs/" + runID + "/result" }

// sink returns the event sink of a run the set starts: the set's own
// OnEvent, the run's watchers (workflow_wait calls) and, for a call that
// waits, its progress tracker.
func (s *Set) sink(track *tracker) func(engine.Event) {
	return func(ev engine.Event) {
		if s.opts.OnEvent != nil {
			s.opts.OnEvent(ev)
		}
		if track != nil {
			track.observe(ev)
		}
		s.mu.Lock()
		ws := make([]func(engine.Event), 0, len(s.watchers[ev.RunID]))
		for _, w := range s.watchers[ev.RunID] {
			ws = append(ws, w)
		}
		s.mu.Unlock()
		for _, w := range ws {
			w(ev)
		}
	}
}

// watch registers fn for the events of runID until the returned function
// is called.
func (s *Set) watch(runID string, fn func(engine.Event)) (unwatch func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextW++
	id := s.nextW
	if s.watchers[runID] == nil {
		s.watchers[runID] = map[int]func(engine.Event){}
	}
	s.watchers[runID][id] = fn
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.watchers[runID], id)
		if len(s.watchers[runID]) == 0 {
			delete(s.watchers, runID)
		}
	}
}

// tracker folds a run's events into Progress reports for one call.
type tracker struct {
	report func(Progress)
	mu     sync.Mutex
	p      Progress
}

func newTracker(report func(Progress)) *tracker {
	if report == nil {
		return nil
	}
	return &tracker{report: report}
}

// snapshot reports a run's state as the registry has it. workflow_wait
// joins a run that is already going, so it reports snapshots rather than
// counting events: an event racing the join is then never counted twice.
func (t *tracker) snapshot(in engine.RunInfo) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.p = Progress{RunID: in.RunID, Name: in.Meta.Name, Phase: in.Phase, Running: in.Agents.Running,
		Done: in.Agents.Done, Failed: in.Agents.Failed + in.Agents.Cancelled, Tokens: in.Usage.InputTokens + in.Usage.OutputTokens, Step: t.p.Step + 1}
	if n := len(in.Logs); n > 0 {
		t.p.Log = in.Logs[n-1]
	}
	t.report(t.p)
}

func (t *tracker) observe(ev engine.Event) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch ev.Type {
	case engine.EventRunStart:
		t.p.RunID = ev.RunID
		if ev.Meta != nil {
			t.p.Name = ev.Meta.Name
		}
	case engine.EventPhase:
		t.p.Phase = ev.Title
	case engine.EventLog:
		var tail engine.LogTail
		tail.Add(ev.Message)
		t.p.Log = tail.Last()
	case engine.EventAgentStart:
		t.p.Running++
	case engine.EventAgentEnd:
		t.p.Running--
		if ev.Outcome == "completed" {
			t.p.Done++
		} else {
			t.p.Failed++
		}
		if ev.Usage != nil {
			t.p.Tokens += ev.Usage.Tokens()
		}
	default:
		return // run.end changes nothing shown
	}
	t.p.Step++
	t.report(t.p) // under the lock: reports come one at a time, in order
}
