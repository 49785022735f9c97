package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/journal"
	"github.com/wfrun/wfrun/engine/ledger"
	"github.com/wfrun/wfrun/meta"
	"github.com/wfrun/wfrun/runtime"
)

// runView is everything one run's page shows, merged from the ledger and
// the run's folder.
type runView struct {
	Run      ledger.Run
	Group    Group
	Retries  []ledger.Run // the runs that retry or resume it
	Timeline []ledger.Event
	Verbs    []verbButton
	Dir      string

	Meta       *meta.WorkflowMeta
	Args       string // pretty JSON, "" without args
	Script     string
	Result     string // the value, pretty, once settled
	HasResult  bool
	Usage      agentapi.Usage // what this run paid so far
	Agents     []*agentView   // by seq
	Phases     []*phaseView
	Lanes      timeline
	Attempts   int // run.start events: a run continued in place has several
	Offset     int64
	Live       bool
	Now        time.Time
	Problems   []string // what could not be read, said rather than hidden
	StartedAgo time.Duration
}

// agentView is one child, from its events, its journal entry and its
// ledger snapshot.
type agentView struct {
	Seq            int
	AgentID        string
	Label          string
	Phase          string
	Persona        string
	Model          string
	Status         string
	Replayed       bool
	Prompt         string
	PromptComplete bool // false: only the ledger's excerpt, or nothing yet
	Result         string
	ResultIsObject bool
	Error          string
	Failure        string
	Note           string
	Usage          agentapi.Usage
	Duration       *time.Duration
	Started        time.Time
	Transcript     bool
}

// phaseView is one phase with the agents that ran in it.
type phaseView struct {
	Title     string
	Detail    string
	Model     string
	Agents    []*agentView
	Completed int
	Failed    int // failed and timed out
	Running   int
	Usage     agentapi.Usage
}

// errNoRun is the page's error for an id the ledger does not hold.
var errNoRun = errors.New("no such run")

// loadRun reads run id from the ledger and its folder.
func (s *Server) loadRun(id string) (*runView, error) {
	if !journal.ValidRunID(id) {
		return nil, fmt.Errorf("%q is not a run id (wf_ and 16 hex digits): %w", id, errNoRun)
	}
	s.sweep()
	l := s.cfg.Engine.Ledger()
	r, err := l.Get(context.Background(), id)
	if errors.Is(err, ledger.ErrNotFound) {
		return nil, fmt.Errorf("the ledger %s holds no run %s: %w", l.Path(), id, errNoRun)
	}
	if err != nil {
		return nil, fmt.Errorf("the run ledger cannot be read: %w", err)
	}
	v := &runView{Run: r, Group: GroupOf(r.Status), Now: s.cfg.Now(), Live: r.Status == ledger.RunRunning}
	v.StartedAgo = v.Now.Sub(r.CreatedAt)
	kids, err := l.Children(context.Background(), id)
	if err == nil {
		v.Timeline, err = l.Timeline(context.Background(), id)
	}
	if err == nil {
		v.Retries, err = l.List(context.Background(), ledger.Filter{ParentRun: id})
	}
	if err != nil {
		return nil, fmt.Errorf("the run ledger cannot be read: %w", err)
	}
	v.Verbs = verbButtons(r.Status)
	v.Dir = s.runDir(r)
	folder, ferr := journal.OpenFolder(filepath.Dir(v.Dir), id)
	if ferr != nil {
		v.problem("the run has no folder, so only its ledger row is shown: %v", ferr)
		v.Agents = agentsFromLedger(kids)
		v.Phases = phases(nil, v.Agents)
		v.sumUsage()
		return v, nil
	}
	v.readRequest(folder)
	if err := s.cfg.Engine.CheckRunRequest(id); err != nil {
		v.problem("%v", err)
	}
	log, err := readEventLog(folder.Path(journal.EventsFile))
	if err != nil {
		v.problem("%v", err)
	}
	if log.Skipped > 0 {
		v.problem("%d lines of events.jsonl are not events and were skipped", log.Skipped)
	}
	if log.Truncated {
		v.problem("events.jsonl is larger than %d MiB; the page shows its beginning", maxEventLog>>20)
	}
	v.Offset = log.End
	entries, err := s.cfg.Engine.RunJournal(id)
	if err != nil {
		v.problem("%v", err)
	}
	v.mergeAgents(log.Events, entries, kids)
	for _, a := range v.Agents {
		a.Transcript = s.transcriptPath(v.Dir, a.AgentID) != ""
	}
	attempt := lastAttempt(log.Events)
	for _, ev := range log.Events {
		if ev.Type == engine.EventRunStart {
			v.Attempts++
			if ev.Meta != nil {
				v.Meta = ev.Meta
			}
		}
	}
	end := v.Now
	if !v.Live {
		end = r.UpdatedAt
		if r.EndedAt != nil {
			end = *r.EndedAt
		}
		if n := len(attempt); n > 0 && attempt[n-1].Time.Before(end) && r.Status == ledger.RunAbandoned {
			end = attempt[n-1].Time // its process died after its last event
		}
	}
	bySeq := map[int]*agentView{}
	for _, a := range v.Agents {
		bySeq[a.Seq] = a
	}
	v.Lanes = layout(attempt, end, func(seq int) string {
		if a := bySeq[seq]; a != nil {
			return a.Status
		}
		return ""
	})
	v.Phases = phases(v.Meta, v.Agents, phaseTitles(log.Events)...)
	v.readResult(folder)
	v.sumUsage()
	return v, nil
}

// runDir is the run's folder: the ledger's, or where the engine puts it
// for a row written without one.
func (s *Server) runDir(r ledger.Run) string {
	if r.Dir != "" {
		return r.Dir
	}
	return filepath.Join(s.cfg.Engine.RunsDir(), r.ID)
}

func (v *runView) problem(format string, args ...any) {
	v.Problems = append(v.Problems, fmt.Sprintf(format, args...))
}

// readRequest reads the meta, args and script the run was started with.
func (v *runView) readRequest(folder *journal.Folder) {
	data, err := folder.ReadFile(journal.RequestFile)
	if err != nil {
		v.problem("%v", err)
		return
	}
	var req engine.WorkflowStartRequest
	if err := json.Unmarshal(data, &req); err != nil {
		v.problem("request.json is not a request: %v", err)
		return
	}
	v.Script = req.Script
	v.Args = pretty(req.Args)
	if len(req.Meta) > 0 {
		var m meta.WorkflowMeta
		if json.Unmarshal(req.Meta, &m) == nil {
			v.Meta = &m
		}
	}
}

// readResult reads the run's value once it has settled.
func (v *runView) readResult(folder *journal.Folder) {
	if v.Live {
		return
	}
	data, err := folder.ReadFile(journal.ResultFile)
	if err != nil {
		return // an abandoned run has none
	}
	var res engine.WorkflowResult
	if err := json.Unmarshal(data, &res); err != nil {
		v.problem("result.json is not a result: %v", err)
		return
	}
	if res.StopReason == engine.StopCompleted {
		v.HasResult, v.Result = true, pretty(res.Value) // a run that did not complete has no value: its error says why
	}
}

// mergeAgents builds the agents from the three places that know of them:
// the events (labels, phases, models, outcomes, durations, and what is
// running now), the journal (the whole prompt and answer of every agent
// that finished) and the ledger's snapshots (the persona, and the status of
// children whose run was abandoned). A seq seen in several attempts is the
// last attempt's.
func (v *runView) mergeAgents(events []engine.Event, entries []runtime.JournalEntry, kids []ledger.Child) {
	bySeq := agentsBySeq{}
	bySeq.fromLedger(kids)
	bySeq.fromEvents(events)
	// A child the events leave running whose run is no longer live ended
	// as the ledger says (abandoned, or cancelled when its run settled).
	for _, c := range kids {
		if a := bySeq[c.Seq]; a.Status == string(ledger.ChildRunning) && (!v.Live || c.Status.Ended()) {
			a.Status = string(c.Status)
		}
	}
	bySeq.fromJournal(entries)
	for _, a := range bySeq {
		if a.Status == string(ledger.ChildRunning) && a.Duration == nil && !a.Started.IsZero() && v.Live {
			d := v.Now.Sub(a.Started) // so far
			a.Duration = &d
		}
		v.Agents = append(v.Agents, a)
	}
	slices.SortFunc(v.Agents, func(a, b *agentView) int { return a.Seq - b.Seq })
}

// agentsBySeq is a run's agents as they are merged, by seq.
type agentsBySeq map[int]*agentView

// get returns the agent seq, made on first use.
func (m agentsBySeq) get(seq int) *agentView {
	a := m[seq]
	if a == nil {
		a = &agentView{Seq: seq}
		m[seq] = a
	}
	return a
}

// fromLedger takes the ledger's snapshots of the children.
func (m agentsBySeq) fromLedger(kids []ledger.Child) {
	for _, c := range kids {
		a := m.get(c.Seq)
		a.AgentID, a.Label, a.Phase, a.Persona, a.Model = c.AgentID, c.Label, c.Phase, c.Persona, c.Model
		a.Status, a.Replayed, a.Error, a.Failure, a.Usage = string(c.Status), c.Replayed, c.Error, c.Failure, c.Usage
		a.Prompt, a.Result = c.PromptExcerpt, c.ResultExcerpt
		a.Started = c.CreatedAt
		var md struct {
			DurationMs *int64 `json:"durationMs"`
		}
		if json.Unmarshal(c.Metadata, &md) == nil && md.DurationMs != nil {
			d := time.Duration(*md.DurationMs) * time.Millisecond
			a.Duration = &d
		}
	}
}

// fromEvents takes the agents' starts and ends from the events, the last
// attempt's over earlier ones.
func (m agentsBySeq) fromEvents(events []engine.Event) {
	last := len(events) - len(lastAttempt(events)) // index of the last run.start
	for i, ev := range events {
		switch ev.Type {
		case engine.EventAgentStart:
			a := m.get(ev.Seq)
			a.AgentID, a.Label, a.Phase, a.Model, a.Replayed, a.Started = ev.AgentID, ev.Label, ev.Phase, ev.Model, ev.Replayed, ev.Time
			a.Status, a.Error, a.Failure, a.Note, a.Duration = string(ledger.ChildRunning), "", "", "", nil
			a.Usage = agentapi.Usage{}
			if i < last {
				// Its attempt ended without an agent.end only if its
				// process died; a later agent.end or attempt says more.
				a.Status = string(ledger.ChildAbandoned)
			}
		case engine.EventAgentEnd:
			a := m.get(ev.Seq)
			a.Status, a.Error, a.Failure, a.Note = string(ev.Outcome), ev.Error, string(ev.Failure), ev.Note
			if ev.Usage != nil {
				a.Usage = *ev.Usage
			}
			if ev.DurationMs != nil {
				d := time.Duration(*ev.DurationMs) * time.Millisecond
				a.Duration = &d
			}
		}
	}
}

// fromJournal takes the whole prompt and answer of every agent that
// finished from the journal's entries.
func (m agentsBySeq) fromJournal(entries []runtime.JournalEntry) {
	for _, en := range entries {
		a := m.get(en.Seq)
		if a.AgentID == "" {
			a.AgentID, a.Label, a.Phase = en.AgentID, en.Label, en.Phase
		}
		var key struct {
			Prompt  string `json:"prompt"`
			Persona string `json:"persona"`
			Model   string `json:"model"`
		}
		if json.Unmarshal([]byte(en.Key), &key) == nil {
			a.Prompt, a.PromptComplete = key.Prompt, true
			if key.Persona != "" {
				a.Persona = key.Persona
			}
			if a.Model == "" {
				a.Model = key.Model
			}
		}
		switch {
		case len(en.Output) > 0:
			a.Result, a.ResultIsObject = pretty(en.Output), true
		default:
			a.Result = en.Text
		}
		if a.Error == "" {
			a.Error, a.Failure = en.Error, string(en.Failure)
		}
		if a.Note == "" {
			a.Note = en.Note
		}
	}
}

// agentsFromLedger is the agents of a run without a folder.
func agentsFromLedger(kids []ledger.Child) []*agentView {
	var v runView
	v.mergeAgents(nil, nil, kids)
	return v.Agents
}

// phaseTitles lists the phase titles in the order the run entered them.
func phaseTitles(events []engine.Event) []string {
	var titles []string
	for _, ev := range events {
		if ev.Type == engine.EventPhase && !slices.Contains(titles, ev.Title) {
			titles = append(titles, ev.Title)
		}
	}
	return titles
}

// phases groups the agents by phase: the meta's phases in their order,
// then the phases the run entered that meta does not list, then agents
// outside any phase.
func phases(m *meta.WorkflowMeta, agents []*agentView, entered ...string) []*phaseView {
	var out []*phaseView
	byTitle := map[string]*phaseView{}
	add := func(title string) *phaseView {
		p := byTitle[title]
		if p == nil {
			p = &phaseView{Title: title}
			byTitle[title] = p
			out = append(out, p)
		}
		return p
	}
	if m != nil {
		for _, ph := range m.Phases {
			p := add(ph.Title)
			p.Detail, p.Model = ph.Detail, ph.Model
		}
	}
	for _, t := range entered {
		add(t)
	}
	for _, a := range agents {
		p := add(a.Phase)
		p.Agents = append(p.Agents, a)
		p.Usage = p.Usage.Add(a.Usage)
		switch a.Status {
		case string(ledger.ChildCompleted):
			p.Completed++
		case string(ledger.ChildFailed), string(ledger.ChildTimedOut):
			p.Failed++
		case string(ledger.ChildRunning), string(ledger.ChildPending):
			p.Running++
		}
	}
	// Agents outside any phase come last, whenever they ran.
	if p := byTitle[""]; p != nil {
		out = slices.DeleteFunc(out, func(q *phaseView) bool { return q == p })
		out = append(out, p)
	}
	return out
}

// sumUsage totals what the run paid: the ledger's figure once the run has
// settled, the sum of its agents while it runs (the row's usage is written
// when it ends).
func (v *runView) sumUsage() {
	if v.Run.EndedAt != nil {
		v.Usage = v.Run.Usage
		return
	}
	for _, a := range v.Agents {
		v.Usage = v.Usage.Add(a.Usage)
	}
}

// pretty indents JSON; anything else comes back as it is.
func pretty(raw json.RawMessage) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		return ""
	}
	var buf bytes.Buffer
	if json.Indent(&buf, raw, "", "  ") != nil {
		return string(raw)
	}
	return buf.String()
}

func (s *Server) runPage(w http.ResponseWriter, r *http.Request) {
	v, err := s.loadRun(r.PathValue("id"))
	if err != nil {
		s.runError(w, r, err)
		return
	}
	s.render(w, http.StatusOK, "run", "layout", v)
}

func (s *Server) runFragment(w http.ResponseWriter, r *http.Request) {
	v, err := s.loadRun(r.PathValue("id"))
	if err != nil {
		s.runError(w, r, err)
		return
	}
	s.render(w, http.StatusOK, "run", "body", v)
}

func (s *Server) runError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, errNoRun) {
		msg := strings.TrimSuffix(err.Error(), ": "+errNoRun.Error())
		s.message(w, r, http.StatusNotFound, "No such run", msg+". The list shows the runs of the ledger.")
		return
	}
	s.message(w, r, http.StatusInternalServerError, "The run cannot be shown", err.Error())
}

// fileExists reports whether path is a regular file.
func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}
