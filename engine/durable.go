package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine/journal"
	"github.com/wfrun/wfrun/engine/ledger"
	"github.com/wfrun/wfrun/internal/human"
	"github.com/wfrun/wfrun/internal/wferr"
	"github.com/wfrun/wfrun/runtime"
)

// Durable runs (docs/durability.md). With Config.RunsDir, every run gets a
// folder (engine/journal) and a row in the run ledger (engine/ledger); its
// store is the runtime's Journal (every child on disk before the script
// sees it), an event sink (events.jsonl and the children's snapshots), and
// a heartbeat that keeps the run's lease and carries out a stop verb
// applied from another process.

// DefaultHeartbeat is how often a live run renews its ledger lease; the
// lease is ten beats.
const DefaultHeartbeat = 2 * time.Second

// excerptRunes is the length of the prompt and result excerpts of the ledger.
const excerptRunes = 200

// durable reports whether runs get folders and ledger rows.
func (e *Engine) durable() bool { return e.cfg.RunsDir != "" }

// Ledger returns the engine's run ledger, or nil without Config.RunsDir.
// Its List, Get, Children and Timeline are what `wfrun runs` and `wfrun
// show` print.
func (e *Engine) Ledger() *ledger.Ledger { return e.ledger }

// RunsDir returns the folder that holds the run folders ("" when runs are
// not durable).
func (e *Engine) RunsDir() string { return e.cfg.RunsDir }

// LedgerFile is the run ledger's name in the runs folder.
const LedgerFile = "ledger.db"

// openLedger opens the ledger of cfg (New).
func openLedger(cfg Config) (*ledger.Ledger, error) {
	path := cfg.LedgerPath
	if path == "" {
		path = filepath.Join(cfg.RunsDir, LedgerFile)
	}
	beat := cfg.Heartbeat
	if beat <= 0 {
		beat = DefaultHeartbeat
	}
	return ledger.Open(path, ledger.Options{Lease: 10 * beat})
}

// StateDir returns the folder of wfrun's state that holds the run keys
// ("" when runs are not durable).
func (e *Engine) StateDir() string { return e.stateDir }

// runKey returns the key of run id, with a sentence for a run that has
// none.
func (e *Engine) runKey(id, what string) (journal.Key, error) {
	k, err := journal.LoadKey(e.stateDir, id)
	if errors.Is(err, journal.ErrNoKey) {
		return nil, wferr.Wrap(wferr.InvalidRequest, err, "run %s cannot be %s: it has no key in %s, so nothing in its folder can be told from what a child wrote there. "+
			"Its folder was written before wfrun authenticated run folders, or with another state folder ($WFRUN_STATE_DIR), or the key was removed; start the script again (its request and script are in the folder to read)", id, what, e.stateDir)
	}
	if err != nil {
		return nil, wferr.Wrap(wferr.InvalidRequest, err, "run %s cannot be %s: %v", id, what, err)
	}
	return k, nil
}

// CheckRunRequest checks run id's saved request against its seal: nil
// when wfrun wrote it as it is, else the error resume would give. A page
// that shows the folder's request says so when it is not.
func (e *Engine) CheckRunRequest(id string) error {
	if !e.durable() {
		return errNoLedger("a run's request")
	}
	folder, err := journal.OpenFolder(e.cfg.RunsDir, id)
	if err != nil {
		return err
	}
	k, err := e.runKey(id, "checked")
	if err != nil {
		return err
	}
	_, err = readRequest(folder, k)
	return err
}

// readJournal reads and checks the journal of run id's folder, against
// the head its run saved when it last settled.
func (e *Engine) readJournal(folder *journal.Folder, k journal.Key, id, what string) ([]runtime.JournalEntry, error) {
	at, err := journal.LoadHead(e.stateDir, id)
	if err != nil {
		return nil, wferr.Wrap(wferr.InvalidRequest, err, "run %s cannot be %s: %v", id, what, err)
	}
	prior, err := folder.ReadJournal(k, at)
	if err != nil {
		return nil, wferr.Wrap(wferr.InvalidRequest, err, "run %s cannot be %s: %v", id, what, err)
	}
	return prior, nil
}

// RunJournal returns the checked journal of run id: what a resume would
// replay. A line that fails its check is an error, as for resume.
func (e *Engine) RunJournal(id string) ([]runtime.JournalEntry, error) {
	if !e.durable() {
		return nil, errNoLedger("a journal")
	}
	folder, err := journal.OpenFolder(e.cfg.RunsDir, id)
	if err != nil {
		return nil, err
	}
	k, err := e.runKey(id, "read")
	if err != nil {
		return nil, err
	}
	return e.readJournal(folder, k, id, "read")
}

// startPlan is how a run starts besides its request: fresh, resuming
// another run, or continuing one in place.
type startPlan struct {
	id        string                 // "" for a fresh id; the run's own id when it continues in place
	prior     []runtime.JournalEntry // what the run replays
	parentRun string                 // the run it resumes or retries, for the lineage
	inPlace   bool                   // continue: the run's folder and journal are its own
}

// resolveResume completes a request that resumes another run: the run
// must have a folder and must not be live; a request without a script
// takes the old run's request, with the fields it sets overriding it
// (limits may be raised, args changed). It returns the request and the
// plan with the old run's journal.
func (e *Engine) resolveResume(req WorkflowStartRequest) (WorkflowStartRequest, startPlan, error) {
	id := strings.TrimSpace(req.ResumeFromRunId)
	if !e.durable() {
		return req, startPlan{}, wferr.New(wferr.InvalidRequest, "resumeFromRunId %q: this engine keeps no runs (no runs folder is configured), so there is no journal to resume from; set Config.RunsDir (the CLI's --runs-dir)", id)
	}
	if err := e.refuseLive(id, "resumed"); err != nil {
		return req, startPlan{}, err
	}
	folder, err := journal.OpenFolder(e.cfg.RunsDir, id)
	if err != nil {
		return req, startPlan{}, wferr.Wrap(wferr.InvalidRequest, err, "resumeFromRunId: %v", err)
	}
	k, err := e.runKey(id, "resumed")
	if err != nil {
		return req, startPlan{}, err
	}
	prior, err := e.readJournal(folder, k, id, "resumed")
	if err != nil {
		return req, startPlan{}, err
	}
	if req.Script == "" {
		old, err := readRequest(folder, k)
		if err != nil {
			return req, startPlan{}, err
		}
		req = overlay(old, req)
	}
	req.ResumeFromRunId = id
	return req, startPlan{prior: prior, parentRun: id}, nil
}

// readRequest reads the request a run folder keeps, checked against the
// folder's seal.
func readRequest(folder *journal.Folder, k journal.Key) (WorkflowStartRequest, error) {
	var old WorkflowStartRequest
	data, err := folder.ReadSealed(k, journal.RequestFile)
	if errors.Is(err, journal.ErrForged) {
		return old, wferr.Wrap(wferr.InvalidRequest, err, "%v; wfrun runs only a request it wrote itself, and a child's tool can reach the runs folder. Read what the folder's request.json now says, then pass the script yourself in a request that resumes the run (resumeFromRunId with script: on the command line, wfrun --request FILE)", err)
	}
	if err == nil {
		err = json.Unmarshal(data, &old)
	}
	if err != nil {
		return old, wferr.Wrap(wferr.InvalidRequest, err, "the run folder %s has no readable request (%v); pass the script in the request to resume it", folder.Dir(), err)
	}
	return old, nil
}

// overlay returns old with every field req sets replacing old's: what a
// resume without a script runs.
func overlay(old, req WorkflowStartRequest) WorkflowStartRequest {
	out := old
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&out.Parent, req.Parent)
	set(&out.SubagentProvider, req.SubagentProvider)
	set(&out.Model, req.Model)
	if len(req.Meta) > 0 {
		out.Meta = req.Meta
	}
	if len(req.FallbackMeta) > 0 {
		out.FallbackMeta = req.FallbackMeta
	}
	if len(req.Args) > 0 {
		out.Args = req.Args
	}
	for _, f := range []struct{ dst, v *int64 }{{&out.TimeoutMs, &req.TimeoutMs}, {&out.AgentTimeoutMs, &req.AgentTimeoutMs}, {&out.BudgetTokens, &req.BudgetTokens}} {
		if *f.v != 0 {
			*f.dst = *f.v
		}
	}
	if req.MaxTotalAgents != 0 {
		out.MaxTotalAgents = req.MaxTotalAgents
	}
	if req.Concurrency != 0 {
		out.Concurrency = req.Concurrency
	}
	if req.MaxMemoryBytes != 0 {
		out.MaxMemoryBytes = req.MaxMemoryBytes
	}
	if req.MaxRunFolderBytes != 0 {
		out.MaxRunFolderBytes = req.MaxRunFolderBytes
	}
	if req.Isolate != "" {
		out.Isolate = req.Isolate
	}
	out.Background, out.OnEvent = req.Background, req.OnEvent
	return out
}

// refuseLive is the error for resuming (or retrying, continuing) a run
// that is still live: here, or in another process whose lease holds.
func (e *Engine) refuseLive(id, what string) error {
	e.mu.Lock()
	_, here := e.runs[id]
	e.mu.Unlock()
	if here {
		return wferr.New(wferr.InvalidRequest, "run %s is still running in this process and cannot be %s; wait for it to end, or stop it first", id, what)
	}
	if _, err := e.SweepRuns(); err != nil {
		return wferr.Wrap(wferr.Internal, err, "the run ledger cannot be read: %v", err)
	}
	r, err := e.ledger.Get(context.Background(), id)
	if err == nil && r.Status == ledger.RunRunning {
		return wferr.New(wferr.InvalidRequest, "run %s is still running (process %d on %s renews its lease until %s) and cannot be %s; wait for it to end, or stop it first (wfrun stop %s)",
			id, r.PID, r.Host, r.LeaseUntil.Format(time.RFC3339), what, id)
	}
	return nil
}

// store is a durable run's side of its files and ledger row: the
// runtime's Journal, an event sink, and the heartbeat.
type store struct {
	e      *Engine
	ctx    context.Context // the starter's context without its cancellation: the row is kept until the run settles
	id     string
	folder *journal.Folder
	lock   *journal.Lock // held for the run's whole life: the kernel drops it when the process dies
	file   *journal.File
	events *journal.EventLog
	row    ledger.Run

	mu        sync.Mutex
	children  map[int]*ledger.Child // by seq
	dirty     map[int]bool
	ledgerErr error // the first error writing the ledger: a warning of the result

	stop     chan struct{} // closed when the run has settled
	beatDone chan struct{} // closed when the heartbeat has returned; nil until it starts

	budget  *journal.Budget         // of the folder's event log and journal
	end     context.CancelCauseFunc // ends the run; set before it starts
	endOnce sync.Once               // the budget ends the run once
}

// openStore creates (or, continuing in place, reopens) the run's folder,
// writes its request, opens its journal and event log, and records it in
// the ledger. A failure is a pre-check error: nothing has run.
func (e *Engine) openStore(ctx context.Context, id string, req WorkflowStartRequest, name string, plan startPlan, budget int64) (*store, error) {
	fail := func(err error) (*store, error) {
		return nil, wferr.Wrap(wferr.ResourceLimit, err, "run %s cannot keep its folder in %s: %v; make the runs folder writable (--runs-dir)", id, e.cfg.RunsDir, err)
	}
	folder, err := journal.Create(e.cfg.RunsDir, id)
	if err != nil {
		return fail(err)
	}
	// The lock comes before the ledger row, so that a running row of this
	// host always has its lock held while its process lives.
	lock, err := folder.Lock()
	if errors.Is(err, journal.ErrLocked) {
		return nil, wferr.Wrap(wferr.InvalidRequest, err, "run %s is still run by another process, which holds its lock (%v), although its lease ran out; wait for that process to end, or stop it, then continue the run", id, err)
	}
	if err != nil {
		return fail(err)
	}
	var k journal.Key
	var at journal.Head
	if plan.inPlace {
		k, err = journal.LoadKey(e.stateDir, id)
		if err == nil {
			at, err = journal.LoadHead(e.stateDir, id)
		}
	} else {
		k, err = journal.NewKey(e.stateDir, id)
	}
	if err != nil {
		lock.Release()
		return nil, wferr.Wrap(wferr.ResourceLimit, err, "run %s cannot keep its key in wfrun's state folder: %v; make %s a private folder of yours (WFRUN_STATE_DIR)", id, err, e.stateDir)
	}
	if !plan.inPlace {
		saved := req
		saved.OnEvent = nil
		err := folder.WriteJSON(journal.RequestFile, saved)
		if err == nil {
			err = folder.WriteFile(journal.ScriptFile, []byte(req.Script))
		}
		if err == nil {
			err = folder.Seal(k, journal.RequestFile, journal.ScriptFile)
		}
		if err != nil {
			lock.Release()
			return fail(err)
		}
	}
	file, err := folder.OpenJournal(k, at, plan.prior)
	if err != nil {
		lock.Release()
		return fail(err)
	}
	events, err := folder.OpenEvents()
	if err != nil {
		file.Close()
		lock.Release()
		return fail(err)
	}
	// A run continued in its own folder has taken part of the budget already.
	b := journal.NewBudget(budget, folder.Appended())
	file.SetBudget(b)
	events.SetBudget(b)
	s := &store{e: e, ctx: context.WithoutCancel(ctx), id: id, folder: folder, lock: lock, file: file, events: events,
		row:      ledger.Run{ID: id, ParentRun: plan.parentRun, Owner: req.Parent, Name: name, Dir: folder.Dir()},
		children: map[int]*ledger.Child{}, dirty: map[int]bool{},
		stop: make(chan struct{}), budget: b}
	if err := e.ledger.Begin(s.ctx, s.row); err != nil {
		file.Close()
		events.Close()
		lock.Release()
		return nil, wferr.Wrap(wferr.ResourceLimit, err, "run %s cannot be recorded in the run ledger %s: %v", id, e.ledger.Path(), err)
	}
	return s, nil
}

// Prior is the runtime's Journal: what the run replays.
func (s *store) Prior() []runtime.JournalEntry { return s.file.Prior() }

// Record is the runtime's Journal: the entry is on disk when it returns,
// and the child's snapshot is updated for the next heartbeat.
func (s *store) Record(en runtime.JournalEntry) error {
	if err := s.file.Record(en); err != nil {
		if errors.Is(err, journal.ErrFolderFull) {
			return s.folderFull(err)
		}
		return err
	}
	var key struct {
		Prompt  string `json:"prompt"`
		Persona string `json:"persona"`
	}
	_ = json.Unmarshal([]byte(en.Key), &key)
	result := en.Text
	if len(en.Output) > 0 {
		result = string(en.Output)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.childLocked(en.Seq, en.AgentID)
	c.Persona, c.PromptExcerpt, c.ResultExcerpt = key.Persona, excerpt(key.Prompt), excerpt(result)
	c.Status, c.Replayed, c.Usage = ledger.ChildStatus(en.Status), en.Replayed, en.Usage
	if en.Replayed {
		c.Usage = agentapi.Usage{} // it cost this run nothing
	}
	c.Error, c.Failure = en.Error, string(en.Failure)
	return nil
}

func (s *store) childLocked(seq int, agentID string) *ledger.Child {
	c := s.children[seq]
	if c == nil {
		c = &ledger.Child{RunID: s.id, Seq: seq, AgentID: agentID, Status: ledger.ChildRunning, CreatedAt: time.Now()}
		s.children[seq] = c
	}
	s.dirty[seq] = true
	return c
}

// observe is the run's event sink: every event to events.jsonl, and the
// agent events into the children's snapshots. Called under the run's lock:
// it only writes a line and updates memory; the heartbeat writes the ledger.
func (s *store) observe(ev Event) {
	s.events.Write(ev)
	if err := s.budget.Spent(); err != nil && ev.Type != EventRunEnd {
		s.folderFull(err)
	}
	if ev.Type != EventAgentStart && ev.Type != EventAgentEnd {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.childLocked(ev.Seq, ev.AgentID)
	c.Label, c.Phase, c.Model, c.Replayed = ev.Label, ev.Phase, ev.Model, ev.Replayed
	if ev.Type == EventAgentEnd {
		c.Status, c.Error, c.Failure = ledger.ChildStatus(ev.Outcome), ev.Error, string(ev.Failure)
		if ev.Usage != nil {
			c.Usage = *ev.Usage
		}
		if ev.DurationMs != nil {
			c.Metadata = json.RawMessage(fmt.Sprintf(`{"durationMs":%d}`, *ev.DurationMs))
		}
	}
}

// folderFull ends the run, once, because its folder's budget refused a
// line (err), and returns the run's error: RESOURCE_LIMIT, naming the
// budget and how to raise it.
func (s *store) folderFull(err error) error {
	detail := err.Error()
	var full *journal.FolderFullError
	if errors.As(err, &full) {
		detail = full.Detail()
	}
	werr := wferr.Wrap(wferr.ResourceLimit, err,
		"the run stopped at its folder's size budget of %s for %s and %s (--max-run-folder, maxRunFolderBytes): %s; pass less text to and from agents, or resume the run (wfrun resume %s) with a larger --max-run-folder",
		human.Bytes(s.budget.Limit()), journal.EventsFile, journal.JournalFile, detail, s.id)
	s.endOnce.Do(func() {
		if s.end != nil {
			s.end(werr)
		}
	})
	return werr
}

// takeDirty returns copies of the children changed since the last call.
func (s *store) takeDirty() []ledger.Child {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]ledger.Child, 0, len(s.dirty))
	for seq := range s.dirty {
		out = append(out, *s.children[seq])
	}
	clear(s.dirty)
	return out
}

func (s *store) noteLedgerError(err error) {
	if err == nil {
		return
	}
	s.mu.Lock()
	if s.ledgerErr == nil {
		s.ledgerErr = err
	}
	s.mu.Unlock()
}

// startBeat starts the heartbeat for r, which finish stops and waits for.
func (s *store) startBeat(r *Run) {
	s.beatDone = make(chan struct{})
	go s.beat(r)
}

// beat renews the run's lease and saves its children's snapshots every
// heartbeat until the run settles, and cancels the run when a stop verb
// was applied to it from elsewhere.
func (s *store) beat(r *Run) {
	defer close(s.beatDone)
	interval := s.e.cfg.Heartbeat
	if interval <= 0 {
		interval = DefaultHeartbeat
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		reason, err := s.e.ledger.Heartbeat(s.ctx, s.id, s.takeDirty())
		s.noteLedgerError(err)
		if reason != "" {
			r.Cancel(reason)
		}
	}
}

// finish writes the result and the run's final row, and closes the files.
// It returns a warning for the result when the ledger could not be kept.
func (s *store) finish(res WorkflowResult) []string {
	close(s.stop)
	if s.beatDone != nil {
		<-s.beatDone
	}
	var warnings []string
	if err := s.folder.WriteJSON(journal.ResultFile, res); err != nil {
		warnings = append(warnings, "the run's result.json could not be written: "+err.Error())
	}
	final := s.row
	final.Status = res.StopReason.RunStatus()
	final.StopReason, final.ErrorCode, final.Error = string(res.StopReason), string(res.ErrorCode), res.Error
	final.AgentsSpawned, final.Usage = res.AgentsSpawned, res.Usage
	a := res.Agents
	final.Agents = ledger.Counts{Completed: a.Completed, Failed: a.Failed, TimedOut: a.TimedOut, Cancelled: a.Cancelled, Replayed: a.Replayed}
	s.noteLedgerError(s.e.ledger.Finish(s.ctx, final, s.takeDirty()))
	if err := journal.SaveHead(s.e.stateDir, s.id, s.file.Head()); err != nil {
		warnings = append(warnings, "the journal's head could not be saved, so a later resume cannot tell whether lines were cut from its end: "+err.Error())
	}
	s.noteLedgerError(errors.Join(s.file.Close(), s.events.Close(), s.lock.Release()))
	if s.ledgerErr != nil {
		warnings = append(warnings, "the run ledger could not be kept up to date: "+s.ledgerErr.Error())
	}
	return warnings
}

func excerpt(s string) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= excerptRunes {
		return s
	}
	return string([]rune(s)[:excerptRunes-1]) + "…"
}

// errNoLedger is the error of a verb on an engine that keeps no runs.
func errNoLedger(verb string) error {
	return wferr.New(wferr.InvalidRequest, "%s needs the run ledger, and this engine keeps no runs; set Config.RunsDir (the CLI's --runs-dir)", verb)
}

// Stop applies the stop verb: a running run is cancelled with reason. A
// run of this engine is cancelled at once; a run of another process is
// cancelled by that process at its next heartbeat. The verb is on the
// run's timeline either way.
func (e *Engine) Stop(runID, reason string) (ledger.Transition, error) {
	if !e.durable() {
		return ledger.Transition{}, errNoLedger("stop")
	}
	if reason == "" {
		reason = "stopped with the stop verb"
	}
	t, _, err := e.ledger.Apply(context.Background(), runID, ledger.Stop, reason)
	if err != nil {
		return t, verbError(err)
	}
	e.mu.Lock()
	r := e.runs[runID]
	e.mu.Unlock()
	if r != nil {
		r.Cancel(reason)
	}
	return t, nil
}

// Note applies the follow_up verb: text is appended to the run's timeline
// and its status stays as it is.
func (e *Engine) Note(runID, text string) error {
	if !e.durable() {
		return errNoLedger("a note")
	}
	if strings.TrimSpace(text) == "" {
		return wferr.New(wferr.InvalidRequest, "the note is empty; say what to remember about the run")
	}
	_, _, err := e.ledger.Apply(context.Background(), runID, ledger.FollowUp, text)
	return verbError(err)
}

// Retry applies the retry verb to a failed, cancelled or abandoned run: a
// new run, resumed from it (its finished children replay for free) and
// linked to it as its child in the lineage, is started with the old run's
// request. adjust, if not nil, fills a request whose set fields override
// the saved one — raise a limit, name the owner, add an OnEvent sink.
func (e *Engine) Retry(ctx context.Context, runID string, adjust func(*WorkflowStartRequest)) (*Run, error) {
	if !e.durable() {
		return nil, errNoLedger("retry")
	}
	if _, err := e.SweepRuns(); err != nil {
		return nil, verbError(err)
	}
	old, err := e.ledger.Get(ctx, runID)
	if err != nil {
		return nil, verbError(err)
	}
	if _, err := ledger.Decide(old.Status, ledger.Retry); err != nil {
		return nil, wferr.Wrap(wferr.InvalidRequest, err, "cannot retry run %s: %v", runID, err)
	}
	req := WorkflowStartRequest{ResumeFromRunId: runID}
	if adjust != nil {
		adjust(&req)
	}
	req.ResumeFromRunId = runID
	r, err := e.Start(ctx, req)
	if err != nil {
		return nil, err
	}
	if err := e.ledger.Note(ctx, runID, ledger.KindRetry, "retried as "+r.ID()); err != nil {
		r.Cancel("the retry could not be recorded in the run ledger")
		return nil, verbError(err)
	}
	return r, nil
}

// Continue applies the continue verb to an abandoned run (its process died
// without settling it): the run is resumed in place, under its own id and
// in its own folder, replaying what its journal holds. adjust, if not nil,
// fills a request whose set fields override the saved one, as for Retry
// (raise a limit, add an OnEvent sink); the owner stays the run's.
func (e *Engine) Continue(ctx context.Context, runID string, adjust func(*WorkflowStartRequest)) (*Run, error) {
	if !e.durable() {
		return nil, errNoLedger("continue")
	}
	folder, err := journal.OpenFolder(e.cfg.RunsDir, runID)
	if err != nil {
		return nil, wferr.Wrap(wferr.InvalidRequest, err, "cannot continue run %s: %v", runID, err)
	}
	k, err := e.runKey(runID, "continued")
	if err != nil {
		return nil, err
	}
	req, err := readRequest(folder, k)
	if err != nil {
		return nil, err
	}
	if adjust != nil {
		var over WorkflowStartRequest
		adjust(&over)
		over.Parent = ""
		req = overlay(req, over)
	}
	prior, err := e.readJournal(folder, k, runID, "continued")
	if err != nil {
		return nil, err
	}
	if _, err := e.SweepRuns(); err != nil {
		return nil, verbError(err)
	}
	// Claiming the run in the ledger is what keeps two processes from
	// continuing it at once.
	if _, _, err := e.ledger.Apply(ctx, runID, ledger.Continue, fmt.Sprintf("in place, replaying %d journaled agents", len(prior))); err != nil {
		return nil, verbError(err)
	}
	old, _ := e.ledger.Get(ctx, runID)
	return e.start(ctx, req, startPlan{id: runID, prior: prior, parentRun: old.ParentRun, inPlace: true})
}

// verbError gives a ledger error its code: a refused verb or an unknown
// run is the caller's INVALID_REQUEST, anything else the ledger's failure.
func verbError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ledger.ErrNotFound):
		return wferr.Wrap(wferr.InvalidRequest, err, "%v; wfrun runs lists the runs of the ledger", err)
	}
	var refused *ledger.RefusedError
	if errors.As(err, &refused) {
		return wferr.Wrap(wferr.InvalidRequest, err, "%v", err)
	}
	return wferr.Wrap(wferr.ResourceLimit, err, "the run ledger failed: %v", err)
}
