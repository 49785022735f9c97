package engine

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine/ledger"
	"github.com/wfrun/wfrun/internal/wferr"
	"github.com/wfrun/wfrun/meta"
)

// The run registry: every run an engine starts is recorded under its owner
// (WorkflowStartRequest.Parent) from Start until it is dropped, some time
// after it finished. A caller sees only its own owner's runs: Lookup, Info
// and Runs take the owner and treat another owner's run exactly like one
// that does not exist, so that one MCP session can neither see nor cancel
// another's. The registry also admits background runs: an owner may have at
// most Config.MaxBackgroundRuns of them running at once.
//
// Retention is lazy: every call that reads the registry (Lookup, Info,
// Runs) first drops the finished runs older than Config.FinishedRunTTL and,
// per owner, all but the newest Config.FinishedRunsKept finished ones.
// Registering a run prunes only once the registry has doubled since the
// last prune, so that Start stays cheap however many runs are kept, while
// what the registry holds stays within twice what it would hold otherwise.
// No goroutine is involved, so the registry owns nothing that Close must
// wait for.

// Defaults of the registry's Config fields.
const (
	DefaultMaxBackgroundRuns = 10        // running background runs per owner
	DefaultFinishedRunsKept  = 100       // finished runs kept per owner
	DefaultFinishedRunTTL    = time.Hour // how long a finished run is kept
)

// RunStatus is where a run is in its life: the run ledger's type, so
// that the engine, the ledger, workflow_status and wfrun runs say a run's
// status with one set of words.
type RunStatus = ledger.RunStatus

// The run statuses: running, then how the run ended, or abandoned for a
// run in the ledger whose process died without settling it. A run that
// stopped with stopReason "error" is "failed".
const (
	RunRunning   = ledger.RunRunning
	RunCompleted = ledger.RunCompleted
	RunCancelled = ledger.RunCancelled
	RunFailed    = ledger.RunFailed
	RunAbandoned = ledger.RunAbandoned
)

// AgentProgress counts a run's children so far.
//
// Once the run has ended, the counts are the result's (WorkflowResult
// Agents): a child dropped while it waited for a slot never started, so no
// event counted it, yet the result counts it cancelled, and so does this.
type AgentProgress struct {
	Running   int `json:"running"`             // started and not yet ended
	Done      int `json:"done"`                // ended completed (or replayed from the journal)
	Failed    int `json:"failed"`              // ended failed or timed out
	Cancelled int `json:"cancelled,omitempty"` // ended cancelled, or dropped before it started
}

// progressOf is the final progress of a run whose result says counts.
func progressOf(counts AgentCounts) AgentProgress {
	return AgentProgress{Done: counts.Completed + counts.Replayed, Failed: counts.Failed + counts.TimedOut, Cancelled: counts.Cancelled}
}

// RunInfo is a snapshot of one run as the registry knows it.
type RunInfo struct {
	RunID string `json:"runId"`
	// Owner is the agent that started the run and owns its children
	// (WorkflowStartRequest.Parent). A run's lineage is its owner, then the
	// run, then its children (whose agentIds the events carry).
	Owner      string            `json:"owner"`
	Meta       meta.WorkflowMeta `json:"meta"`
	Status     RunStatus         `json:"status"`
	Background bool              `json:"background"`
	// Phase is the title of the last phase() call, "" before the first.
	Phase  string        `json:"phase,omitempty"`
	Agents AgentProgress `json:"agents"`
	// Usage sums the children that have ended.
	Usage     Usage      `json:"usage"`
	StartedAt time.Time  `json:"startedAt"`
	EndedAt   *time.Time `json:"endedAt,omitempty"`
	// ElapsedMs is the time from start to now, or to the end once ended.
	ElapsedMs int64 `json:"elapsedMs"`
	// ErrorCode and Error are set when the run ended other than completed.
	ErrorCode ErrorCode `json:"errorCode,omitempty"`
	Error     string    `json:"error,omitempty"`
	// Logs are the last lines the script logged (log(), console.*), oldest
	// first: at most MaxLogLines lines and MaxLogBytes bytes.
	Logs []string `json:"logs,omitempty"`
}

// registry holds the records of an engine's runs. The zero value is ready
// to use; limits are read from the engine's Config.
type registry struct {
	mu      sync.Mutex
	records map[string]*record // by run id
	pruneAt int                // register prunes once records holds this many
	now     func() time.Time   // time.Now; tests replace it
}

// minPruneAt is the fewest records register lets accumulate before it
// prunes.
const minPruneAt = 64

// record is one run's entry. Its fields after run are guarded by mu.
type record struct {
	run        *Run
	owner      string
	background bool
	started    time.Time

	mu       sync.Mutex
	phase    string
	logs     LogTail
	agents   AgentProgress
	usage    agentapi.Usage
	ended    time.Time // zero while running
	finished bool
}

func (g *registry) clock() time.Time {
	if g.now != nil {
		return g.now()
	}
	return time.Now()
}

// register records r under req's owner, refusing a background run past the
// owner's limit. It returns the record, whose observe method must receive
// every event of the run.
func (e *Engine) register(r *Run, req WorkflowStartRequest) (*record, error) {
	g := &e.registry
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.clock()
	if len(g.records) >= g.pruneAt {
		g.pruneLocked(now, e.cfg)
		g.pruneAt = max(2*len(g.records), minPruneAt)
	}
	if req.Background {
		limit := e.cfg.MaxBackgroundRuns
		if limit <= 0 {
			limit = DefaultMaxBackgroundRuns
		}
		running := 0
		for _, rec := range g.records {
			if rec.owner == req.Parent && rec.background && !rec.isFinished() {
				running++
			}
		}
		if running >= limit {
			return nil, wferr.New(wferr.ResourceLimit,
				"%q already has %d background runs going, the most it may have at once; wait for one (workflow_wait), cancel one (workflow_cancel) or run this one in the foreground",
				req.Parent, running)
		}
	}
	if g.records == nil {
		g.records = make(map[string]*record)
	}
	rec := &record{run: r, owner: req.Parent, background: req.Background, started: now}
	g.records[r.id] = rec
	return rec, nil
}

// unregister forgets a run that was recorded but never started.
func (e *Engine) unregister(id string) {
	e.registry.mu.Lock()
	delete(e.registry.records, id)
	e.registry.mu.Unlock()
}

// observe folds one of the run's events into the record.
func (rec *record) observe(ev Event) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	switch ev.Type {
	case EventPhase:
		rec.phase = ev.Title
	case EventLog:
		rec.logs.Add(ev.Message)
	case EventAgentStart:
		rec.agents.Running++
	case EventAgentEnd:
		rec.agents.Running--
		switch ev.Outcome {
		case agentapi.StatusCompleted:
			rec.agents.Done++
		case agentapi.StatusCancelled:
			rec.agents.Cancelled++
		default:
			rec.agents.Failed++
		}
		if ev.Usage != nil {
			rec.usage = rec.usage.Add(*ev.Usage)
		}
	case EventRunEnd:
		rec.finished, rec.ended = true, ev.Time
	}
}

func (rec *record) isFinished() bool {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.finished
}

// info renders the record at now.
func (rec *record) info(now time.Time) RunInfo {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	in := RunInfo{
		RunID: rec.run.id, Owner: rec.owner, Meta: rec.run.meta, Status: RunRunning, Background: rec.background,
		Phase: rec.phase, Agents: rec.agents, Usage: rec.usage, StartedAt: rec.started,
		ElapsedMs: now.Sub(rec.started).Milliseconds(), Logs: rec.logs.Lines(),
	}
	if res, ok := rec.run.Result(); ok {
		in.Status = res.StopReason.RunStatus()
		in.ErrorCode, in.Error, in.Usage = res.ErrorCode, res.Error, res.Usage
		in.Agents = progressOf(res.Agents)
		end := rec.ended
		if end.IsZero() {
			end = now
		}
		in.EndedAt = &end
		in.ElapsedMs = end.Sub(rec.started).Milliseconds()
	}
	return in
}

// ledgerInfo renders a ledger row as the registry would the run. A row
// that says running belongs to a live run of another process.
func ledgerInfo(row ledger.Run, now time.Time) RunInfo {
	in := RunInfo{
		RunID: row.ID, Owner: row.Owner, Meta: meta.WorkflowMeta{Name: row.Name}, Status: RunRunning,
		Agents: progressOf(AgentCounts(row.Agents)),
		Usage:  row.Usage, StartedAt: row.CreatedAt, ElapsedMs: now.Sub(row.CreatedAt).Milliseconds(),
		ErrorCode: ErrorCode(row.ErrorCode), Error: row.Error,
	}
	switch row.Status {
	case ledger.RunCompleted:
		in.Status = RunCompleted
	case ledger.RunCancelled:
		in.Status = RunCancelled
	case ledger.RunFailed:
		in.Status = RunFailed
	case ledger.RunAbandoned:
		in.Status = RunAbandoned
		in.Error = "its process died without settling it; it can be continued (wfrun continue " + row.ID + ") or retried"
	}
	end := row.EndedAt
	if end == nil && row.Status == ledger.RunAbandoned {
		end = &row.UpdatedAt
	}
	if end != nil {
		in.EndedAt = end
		in.ElapsedMs = end.Sub(row.CreatedAt).Milliseconds()
	}
	return in
}

// pruneLocked drops finished runs past the TTL and, per owner, past the
// count.
func (g *registry) pruneLocked(now time.Time, cfg Config) {
	ttl := cfg.FinishedRunTTL
	if ttl <= 0 {
		ttl = DefaultFinishedRunTTL
	}
	keep := cfg.FinishedRunsKept
	if keep <= 0 {
		keep = DefaultFinishedRunsKept
	}
	type done struct {
		id    string
		ended time.Time
	}
	byOwner := map[string][]done{}
	for id, rec := range g.records {
		rec.mu.Lock()
		finished, ended := rec.finished, rec.ended
		rec.mu.Unlock()
		if !finished {
			continue
		}
		if now.Sub(ended) > ttl {
			delete(g.records, id)
			continue
		}
		byOwner[rec.owner] = append(byOwner[rec.owner], done{id, ended})
	}
	for _, runs := range byOwner {
		if len(runs) <= keep {
			continue
		}
		slices.SortFunc(runs, func(a, b done) int { return b.ended.Compare(a.ended) }) // newest first
		for _, d := range runs[keep:] {
			delete(g.records, d.id)
		}
	}
}

// lookup returns owner's record of runID.
func (e *Engine) lookup(owner, runID string) (*record, time.Time, bool) {
	g := &e.registry
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.clock()
	g.pruneLocked(now, e.cfg)
	rec, ok := g.records[runID]
	if !ok || rec.owner != owner {
		return nil, now, false
	}
	return rec, now, true
}

// Lookup returns the run runID if owner started it and the engine still
// holds it: while it runs, and for a while after it finished (see
// Config.FinishedRunTTL and FinishedRunsKept). Another owner's run is
// reported as absent.
func (e *Engine) Lookup(owner, runID string) (*Run, bool) {
	rec, _, ok := e.lookup(owner, runID)
	if !ok {
		return nil, false
	}
	return rec.run, true
}

// Info returns a snapshot of owner's run runID: status, phase, agents,
// tokens, elapsed time. Another owner's run is reported as absent. With a
// run ledger (Config.RunsDir), a run the registry no longer holds — it
// ended long ago, or in another process — is read from the ledger.
func (e *Engine) Info(owner, runID string) (RunInfo, bool) {
	rec, now, ok := e.lookup(owner, runID)
	if ok {
		return rec.info(now), true
	}
	if e.ledger == nil {
		return RunInfo{}, false
	}
	_, _ = e.SweepRuns() // a run whose process died reads as abandoned, not running
	row, err := e.ledger.Get(context.Background(), runID)
	if err != nil || row.Owner != owner {
		return RunInfo{}, false
	}
	return ledgerInfo(row, now), true
}

// Runs lists owner's runs the engine still holds, running and finished,
// foreground and background, newest first.
func (e *Engine) Runs(owner string) []RunInfo {
	g := &e.registry
	g.mu.Lock()
	now := g.clock()
	g.pruneLocked(now, e.cfg)
	var recs []*record
	for _, rec := range g.records {
		if rec.owner == owner {
			recs = append(recs, rec)
		}
	}
	g.mu.Unlock()
	out := make([]RunInfo, 0, len(recs))
	held := map[string]bool{}
	for _, rec := range recs {
		out = append(out, rec.info(now))
		held[rec.run.id] = true
	}
	if e.ledger != nil {
		keep := e.cfg.FinishedRunsKept
		if keep <= 0 {
			keep = DefaultFinishedRunsKept
		}
		_, _ = e.SweepRuns()
		rows, _ := e.ledger.List(context.Background(), ledger.Filter{Owner: owner, Limit: keep})
		for _, row := range rows {
			if !held[row.ID] {
				out = append(out, ledgerInfo(row, now))
			}
		}
	}
	slices.SortFunc(out, func(a, b RunInfo) int {
		if c := b.StartedAt.Compare(a.StartedAt); c != 0 {
			return c
		}
		return cmp.Compare(b.RunID, a.RunID)
	})
	return out
}
