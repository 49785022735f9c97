package ledger

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite", pure Go

	"github.com/wfrun/wfrun/agentapi"
)

// DefaultLease is how long a run's heartbeat keeps it alive: a running run
// whose lease has passed is abandoned.
const DefaultLease = 30 * time.Second

// ErrNotFound is returned (wrapped) for a run the ledger does not hold.
var ErrNotFound = errors.New("no such run in the ledger")

// Options configures Open. The zero value is what a program wants.
type Options struct {
	// Lease is how far each heartbeat extends a run's lease; 0 means
	// DefaultLease. A process should beat several times per lease.
	Lease time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Ledger is an open run ledger. It is safe for concurrent use, and other
// processes may have the same file open at the same time.
type Ledger struct {
	db    *sql.DB
	path  string
	lease time.Duration
	now   func() time.Time
	fresh bool // Open created the schema: the file was missing or empty
}

// Counts tallies how a run's children ended (the result's agents).
type Counts struct {
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
	TimedOut  int `json:"timedOut"`
	Cancelled int `json:"cancelled"`
	Replayed  int `json:"replayed"`
}

// Run is one run's row.
type Run struct {
	ID string `json:"runId"`
	// ParentRun is the run this one retries or resumes ("" for none):
	// its parent in the lineage.
	ParentRun     string         `json:"parentRun,omitempty"`
	Owner         string         `json:"owner"`
	Name          string         `json:"name"`
	Status        RunStatus      `json:"status"`
	StopReason    string         `json:"stopReason,omitempty"`
	ErrorCode     string         `json:"errorCode,omitempty"`
	Error         string         `json:"error,omitempty"`
	AgentsSpawned int            `json:"agentsSpawned"`
	Agents        Counts         `json:"agents"`
	Usage         agentapi.Usage `json:"usage"`
	CreatedAt     time.Time      `json:"createdAt"`
	UpdatedAt     time.Time      `json:"updatedAt"`
	EndedAt       *time.Time     `json:"endedAt,omitempty"`
	// LeaseUntil is when a running run is abandoned unless its process
	// renews the lease.
	LeaseUntil time.Time `json:"leaseUntil"`
	PID        int       `json:"pid,omitempty"`
	Host       string    `json:"host,omitempty"`
	// StopRequested is the reason of a stop verb the run's process has not
	// carried out yet.
	StopRequested string `json:"stopRequested,omitempty"`
	// Dir is the run's folder.
	Dir string `json:"dir,omitempty"`
}

// Child is one child's row: a snapshot of an agent of a run. Metadata is
// a JSON object of what else the writer knows; the engine keeps the
// child's durationMs there.
type Child struct {
	RunID         string          `json:"runId"`
	AgentID       string          `json:"agentId"`
	Seq           int             `json:"seq"`
	Label         string          `json:"label,omitempty"`
	Phase         string          `json:"phase,omitempty"`
	Persona       string          `json:"persona,omitempty"`
	Model         string          `json:"model,omitempty"`
	Status        ChildStatus     `json:"status"`
	Replayed      bool            `json:"replayed,omitempty"`
	PromptExcerpt string          `json:"promptExcerpt,omitempty"`
	ResultExcerpt string          `json:"resultExcerpt,omitempty"`
	Error         string          `json:"error,omitempty"`
	Failure       string          `json:"failure,omitempty"`
	Usage         agentapi.Usage  `json:"usage"`
	CreatedAt     time.Time       `json:"createdAt"`
	UpdatedAt     time.Time       `json:"updatedAt"`
	Metadata      json.RawMessage `json:"metadata,omitempty"`
}

// Kind names an entry of a run's timeline.
type Kind string

// The timeline kinds: the run's own life, and the verbs applied to it.
const (
	KindStarted   Kind = "started"
	KindFinished  Kind = "finished"
	KindAbandoned Kind = "abandoned"
	KindRebuilt   Kind = "rebuilt" // the row was rebuilt from the run's folder
	KindStop      Kind = Kind(Stop)
	KindRetry     Kind = Kind(Retry)
	KindContinue  Kind = Kind(Continue)
	KindFollowUp  Kind = Kind(FollowUp)
)

// Event is one entry of a run's timeline.
type Event struct {
	At     time.Time `json:"at"`
	Kind   Kind      `json:"kind"`
	Detail string    `json:"detail,omitempty"`
}

// Open opens the ledger at path, creating it (and its folder) if needed,
// brings its schema up to date, and marks abandoned every run whose lease
// has expired.
func Open(path string, o Options) (*Ledger, error) {
	if o.Lease <= 0 {
		o.Lease = DefaultLease
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the ledger's folder: %w", err)
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("cannot open the ledger %s: %w", path, err)
	}
	l := &Ledger{db: db, path: path, lease: o.Lease, now: o.Now}
	if err := l.setUp(); err != nil {
		db.Close()
		if notADatabase(err) {
			return nil, fmt.Errorf("the ledger %s is not a SQLite database (%v: something overwrote it); wfrun does not replace it on its own. Move it aside (mv %s %s.damaged) and the next wfrun command rebuilds the ledger from the run folders", path, err, path, path)
		}
		return nil, fmt.Errorf("the ledger %s: %w", path, err)
	}
	if _, err := l.Sweep(context.Background()); err != nil {
		db.Close()
		return nil, fmt.Errorf("the ledger %s: %w", path, err)
	}
	return l, nil
}

// Close closes the ledger.
func (l *Ledger) Close() error { return l.db.Close() }

// Path is the ledger's file.
func (l *Ledger) Path() string { return l.path }

// Lease is how far a heartbeat extends a run's lease.
func (l *Ledger) Lease() time.Duration { return l.lease }

// setUp switches the file to WAL mode and applies the migrations, holding
// an exclusive lock on a file beside the ledger: two processes creating one
// ledger at the same moment would otherwise each need the other's lock to
// change the journal mode, and SQLite fails one of them at once rather
// than wait.
func (l *Ledger) setUp() error {
	lock, err := os.OpenFile(l.path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("cannot open its lock file: %w", err)
	}
	defer lock.Close()
	for {
		err = syscall.Flock(int(lock.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("cannot lock it: %w", err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	var mode string
	if err := l.db.QueryRow("PRAGMA journal_mode = WAL").Scan(&mode); err != nil {
		return fmt.Errorf("cannot switch it to WAL mode: %w", err)
	}
	if mode != "wal" {
		return fmt.Errorf("it stays in journal mode %q: the ledger needs WAL, which needs a local file system", mode)
	}
	return l.migrate()
}

// migrate applies the migrations not applied yet, each in a transaction
// that also bumps user_version.
func (l *Ledger) migrate() error {
	for {
		done, err := l.migrateOne()
		if err != nil || done {
			return err
		}
	}
}

func (l *Ledger) migrateOne() (done bool, err error) {
	tx, err := l.db.Begin()
	if err != nil {
		return false, err
	}
	defer tx.Rollback()
	var version int
	if err := tx.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
		return false, err
	}
	switch {
	case version > len(migrations):
		return false, fmt.Errorf("its schema is version %d, newer than this wfrun's %d; use the wfrun that wrote it", version, len(migrations))
	case version == len(migrations):
		return true, nil
	case version == 0:
		l.fresh = true
	}
	if _, err := tx.Exec(migrations[version]); err != nil {
		return false, fmt.Errorf("migration %d: %w", version+1, err)
	}
	if _, err := tx.Exec(fmt.Sprintf("PRAGMA user_version = %d", version+1)); err != nil {
		return false, err
	}
	return false, tx.Commit()
}

// SchemaVersion is the number of migrations the ledger has applied.
func (l *Ledger) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := l.db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	return v, err
}

func ms(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func fromMs(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v)
}

// tx runs fn in a write transaction.
func (l *Ledger) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	return inTx(ctx, l.db, fn)
}

// inTx runs fn in a transaction begun on b (the pool, or one connection of
// it), committing when fn succeeds and rolling back when it fails.
func inTx(ctx context.Context, b interface {
	BeginTx(context.Context, *sql.TxOptions) (*sql.Tx, error)
}, fn func(*sql.Tx) error) error {
	tx, err := b.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

func appendEvent(tx *sql.Tx, runID string, at time.Time, kind Kind, detail string) error {
	_, err := tx.Exec(`INSERT INTO timeline (run_id, at_ms, kind, detail) VALUES (?, ?, ?, ?)`, runID, ms(at), string(kind), detail)
	return err
}

// Sweep marks abandoned every running run whose lease has expired, with
// its pending and running children, and returns how many runs it marked.
// Open sweeps; a long-lived process may sweep again.
func (l *Ledger) Sweep(ctx context.Context) (int, error) {
	now := l.now()
	var n int
	err := l.tx(ctx, func(tx *sql.Tx) error {
		type expired struct {
			id    string
			lease int64
		}
		rows, err := tx.Query(`SELECT id, lease_ms FROM runs WHERE status = ? AND lease_ms < ?`, string(RunRunning), ms(now))
		runs, err := scanAll(rows, err, func(s scanner) (e expired, err error) { return e, s.Scan(&e.id, &e.lease) })
		if err != nil {
			return err
		}
		for _, r := range runs {
			detail := fmt.Sprintf("its heartbeat lease expired at %s without the run settling: its process died", fromMs(r.lease).UTC().Format(time.RFC3339))
			if err := markAbandoned(tx, r.id, now, detail); err != nil {
				return err
			}
		}
		n = len(runs)
		return nil
	})
	return n, err
}

// Begin records a run that starts now, owned by this process, with a
// fresh lease. A run continued in place already has its row, which Apply
// has claimed; Begin then only renews it.
func (l *Ledger) Begin(ctx context.Context, r Run) error {
	now := l.now()
	host, _ := os.Hostname()
	return l.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.Exec(`UPDATE runs SET status = ?, stop_reason = '', error_code = '', error = '', ended_ms = 0,
			updated_ms = ?, lease_ms = ?, pid = ?, host = ?, stop_requested = '' WHERE id = ?`,
			string(RunRunning), ms(now), ms(now.Add(l.lease)), os.Getpid(), host, r.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			if _, err := tx.Exec(`INSERT INTO runs (id, parent_run, owner, name, status, created_ms, updated_ms, lease_ms, pid, host, dir)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				r.ID, r.ParentRun, r.Owner, r.Name, string(RunRunning), ms(now), ms(now), ms(now.Add(l.lease)), os.Getpid(), host, r.Dir); err != nil {
				return err
			}
		}
		detail := "by " + r.Owner
		if r.ParentRun != "" {
			detail += ", resuming " + r.ParentRun
		}
		return appendEvent(tx, r.ID, now, KindStarted, detail)
	})
}

// Heartbeat renews a running run's lease and saves the snapshots of the
// children that changed. It returns the reason of a stop verb applied to
// the run since it began ("" for none), which the caller must carry out.
// A run that is no longer running in the ledger (a sweep found its lease
// expired) is not revived: the error says so.
func (l *Ledger) Heartbeat(ctx context.Context, runID string, children []Child) (stopRequested string, err error) {
	now := l.now()
	err = l.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.Exec(`UPDATE runs SET lease_ms = ?, updated_ms = ? WHERE id = ? AND status = ?`,
			ms(now.Add(l.lease)), ms(now), runID, string(RunRunning))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("run %s is no longer running in the ledger (its lease expired and it was marked abandoned)", runID)
		}
		if err := upsertChildren(tx, children, now); err != nil {
			return err
		}
		return tx.QueryRow(`SELECT stop_requested FROM runs WHERE id = ?`, runID).Scan(&stopRequested)
	})
	return stopRequested, err
}

// Finish records how a run settled, with the final snapshots of the
// children that changed. final.Status must not be running.
func (l *Ledger) Finish(ctx context.Context, final Run, children []Child) error {
	if final.Status == RunRunning || !final.Status.Valid() {
		return fmt.Errorf("a run cannot finish as %q", final.Status)
	}
	now := l.now()
	return l.tx(ctx, func(tx *sql.Tx) error {
		if err := upsertChildren(tx, children, now); err != nil {
			return err
		}
		// A child still running when its run settled was dropped with it.
		if _, err := tx.Exec(`UPDATE children SET status = ?, updated_ms = ? WHERE run_id = ? AND status IN (?, ?)`,
			string(ChildCancelled), ms(now), final.ID, string(ChildPending), string(ChildRunning)); err != nil {
			return err
		}
		a := final.Agents
		if _, err := tx.Exec(`UPDATE runs SET status = ?, stop_reason = ?, error_code = ?, error = ?, agents_spawned = ?,
			completed = ?, failed = ?, timed_out = ?, cancelled = ?, replayed = ?, input_tokens = ?, output_tokens = ?, cost_usd = ?,
			updated_ms = ?, ended_ms = ?, stop_requested = '' WHERE id = ?`,
			string(final.Status), final.StopReason, final.ErrorCode, final.Error, final.AgentsSpawned,
			a.Completed, a.Failed, a.TimedOut, a.Cancelled, a.Replayed, final.Usage.InputTokens, final.Usage.OutputTokens, final.Usage.CostUSD,
			ms(now), ms(now), final.ID); err != nil {
			return err
		}
		detail := string(final.Status)
		if final.ErrorCode != "" {
			detail += " (" + final.ErrorCode + ")"
		}
		return appendEvent(tx, final.ID, now, KindFinished, detail)
	})
}

func upsertChildren(tx *sql.Tx, children []Child, now time.Time) error {
	if len(children) == 0 {
		return nil
	}
	stmt, err := tx.Prepare(`INSERT INTO children (run_id, seq, agent_id, label, phase, persona, model, status, replayed,
		prompt_excerpt, result_excerpt, error, failure, input_tokens, output_tokens, cost_usd, created_ms, updated_ms, metadata)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (run_id, seq) DO UPDATE SET agent_id = excluded.agent_id, label = excluded.label, phase = excluded.phase,
			persona = CASE WHEN excluded.persona != '' THEN excluded.persona ELSE children.persona END,
			model = excluded.model, status = excluded.status, replayed = excluded.replayed,
			prompt_excerpt = CASE WHEN excluded.prompt_excerpt != '' THEN excluded.prompt_excerpt ELSE children.prompt_excerpt END,
			result_excerpt = excluded.result_excerpt, error = excluded.error, failure = excluded.failure,
			input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens, cost_usd = excluded.cost_usd,
			updated_ms = excluded.updated_ms, metadata = excluded.metadata`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, c := range children {
		created := c.CreatedAt
		if created.IsZero() {
			created = now
		}
		meta := string(c.Metadata)
		if meta == "" {
			meta = "{}"
		}
		if _, err := stmt.Exec(c.RunID, c.Seq, c.AgentID, c.Label, c.Phase, c.Persona, c.Model, string(c.Status), c.Replayed,
			c.PromptExcerpt, c.ResultExcerpt, c.Error, c.Failure, c.Usage.InputTokens, c.Usage.OutputTokens, c.Usage.CostUSD,
			ms(created), ms(now), meta); err != nil {
			return err
		}
	}
	return nil
}

// Note appends an entry to a run's timeline.
func (l *Ledger) Note(ctx context.Context, runID string, kind Kind, detail string) error {
	return l.tx(ctx, func(tx *sql.Tx) error {
		if err := requireRun(tx, runID); err != nil {
			return err
		}
		return appendEvent(tx, runID, l.now(), kind, detail)
	})
}

func requireRun(tx *sql.Tx, runID string) error {
	var one int
	err := tx.QueryRow(`SELECT 1 FROM runs WHERE id = ?`, runID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("run %s: %w", runID, ErrNotFound)
	}
	return err
}

// Apply checks verb v against the run's status with Decide and records it,
// in one transaction, appending it to the run's timeline with detail (a
// stop's reason, a note's text, the id of a retry's new run):
//
//   - stop sets the run's stop request, which its process carries out at
//     its next heartbeat;
//   - continue claims an abandoned run for this process (it is running
//     again, with a fresh lease), so that two processes cannot both
//     continue it;
//   - retry and follow_up change nothing but the timeline.
//
// It returns the transition and the run as it was before.
func (l *Ledger) Apply(ctx context.Context, runID string, v Verb, detail string) (Transition, Run, error) {
	var t Transition
	var before Run
	now := l.now()
	err := l.tx(ctx, func(tx *sql.Tx) error {
		var err error
		if before, err = getRun(ctx, tx, runID); err != nil {
			return err
		}
		if t, err = Decide(before.Status, v); err != nil {
			return &RefusedError{Verb: v, RunID: runID, Err: err}
		}
		switch v {
		case Stop:
			reason := detail
			if reason == "" {
				reason = "stopped with the stop verb"
			}
			if _, err := tx.Exec(`UPDATE runs SET stop_requested = ?, updated_ms = ? WHERE id = ?`, reason, ms(now), runID); err != nil {
				return err
			}
		case Continue:
			host, _ := os.Hostname()
			if _, err := tx.Exec(`UPDATE runs SET status = ?, updated_ms = ?, lease_ms = ?, pid = ?, host = ?, ended_ms = 0 WHERE id = ?`,
				string(RunRunning), ms(now), ms(now.Add(l.lease)), os.Getpid(), host, runID); err != nil {
				return err
			}
		}
		return appendEvent(tx, runID, now, Kind(v), detail)
	})
	return t, before, err
}

// RefusedError is Apply's error for a verb that Decide refuses.
type RefusedError struct {
	Verb  Verb
	RunID string
	Err   error // Decide's sentence
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("cannot %s run %s: %v", strings.ReplaceAll(string(e.Verb), "_", " "), e.RunID, e.Err)
}

func (e *RefusedError) Unwrap() error { return e.Err }

// scanner is a *sql.Row or *sql.Rows: what the scanXxx functions read.
type scanner interface{ Scan(...any) error }

// querier is the *sql.DB or the *sql.Tx a read goes through.
type querier interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}

// scanAll reads every row of rows with scan and closes them; err is
// Query's. Its slice is empty, never nil, when there are no rows, so that
// a listing encodes as [].
func scanAll[T any](rows *sql.Rows, err error, scan func(scanner) (T, error)) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

const runColumns = `id, parent_run, owner, name, status, stop_reason, error_code, error, agents_spawned, completed, failed,
	timed_out, cancelled, replayed, input_tokens, output_tokens, cost_usd, created_ms, updated_ms, ended_ms, lease_ms, pid, host,
	stop_requested, dir`

func scanRun(s scanner) (Run, error) {
	var r Run
	var status string
	var created, updated, ended, lease int64
	err := s.Scan(&r.ID, &r.ParentRun, &r.Owner, &r.Name, &status, &r.StopReason, &r.ErrorCode, &r.Error, &r.AgentsSpawned,
		&r.Agents.Completed, &r.Agents.Failed, &r.Agents.TimedOut, &r.Agents.Cancelled, &r.Agents.Replayed,
		&r.Usage.InputTokens, &r.Usage.OutputTokens, &r.Usage.CostUSD, &created, &updated, &ended, &lease, &r.PID, &r.Host,
		&r.StopRequested, &r.Dir)
	r.Status = RunStatus(status)
	r.CreatedAt, r.UpdatedAt, r.LeaseUntil = fromMs(created), fromMs(updated), fromMs(lease)
	if ended != 0 {
		e := fromMs(ended)
		r.EndedAt = &e
	}
	return r, err
}

func getRun(ctx context.Context, q querier, runID string) (Run, error) {
	r, err := scanRun(q.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs WHERE id = ?`, runID))
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("run %s: %w", runID, ErrNotFound)
	}
	return r, err
}

// Get returns the run runID.
func (l *Ledger) Get(ctx context.Context, runID string) (Run, error) {
	return getRun(ctx, l.db, runID)
}

// Filter selects runs for List. Zero fields select everything.
type Filter struct {
	Status RunStatus
	Name   string // the meta name, exactly
	Owner  string
	// ParentRun selects the runs that retry or resume this one: its
	// children in the lineage.
	ParentRun string
	Limit     int // 0: no limit
}

// List returns the runs f selects, newest first.
func (l *Ledger) List(ctx context.Context, f Filter) ([]Run, error) {
	var where []string
	var args []any
	if f.Status != "" {
		where, args = append(where, "status = ?"), append(args, string(f.Status))
	}
	if f.Name != "" {
		where, args = append(where, "name = ?"), append(args, f.Name)
	}
	if f.Owner != "" {
		where, args = append(where, "owner = ?"), append(args, f.Owner)
	}
	if f.ParentRun != "" {
		where, args = append(where, "parent_run = ?"), append(args, f.ParentRun)
	}
	q := `SELECT ` + runColumns + ` FROM runs`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY created_ms DESC, id DESC"
	if f.Limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", f.Limit)
	}
	rows, err := l.db.QueryContext(ctx, q, args...)
	return scanAll(rows, err, scanRun)
}

const childColumns = `run_id, seq, agent_id, label, phase, persona, model, status, replayed, prompt_excerpt,
	result_excerpt, error, failure, input_tokens, output_tokens, cost_usd, created_ms, updated_ms, metadata`

func scanChild(s scanner) (Child, error) {
	var c Child
	var status, meta string
	var created, updated int64
	err := s.Scan(&c.RunID, &c.Seq, &c.AgentID, &c.Label, &c.Phase, &c.Persona, &c.Model, &status, &c.Replayed,
		&c.PromptExcerpt, &c.ResultExcerpt, &c.Error, &c.Failure, &c.Usage.InputTokens, &c.Usage.OutputTokens, &c.Usage.CostUSD,
		&created, &updated, &meta)
	c.Status, c.CreatedAt, c.UpdatedAt = ChildStatus(status), fromMs(created), fromMs(updated)
	if meta != "{}" {
		c.Metadata = json.RawMessage(meta)
	}
	return c, err
}

// Children returns a run's children in seq order.
func (l *Ledger) Children(ctx context.Context, runID string) ([]Child, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT `+childColumns+` FROM children WHERE run_id = ? ORDER BY seq`, runID)
	return scanAll(rows, err, scanChild)
}

func scanEvent(s scanner) (Event, error) {
	var e Event
	var at int64
	var kind string
	err := s.Scan(&at, &kind, &e.Detail)
	e.At, e.Kind = fromMs(at), Kind(kind)
	return e, err
}

// Timeline returns a run's timeline, oldest first.
func (l *Ledger) Timeline(ctx context.Context, runID string) ([]Event, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT at_ms, kind, detail FROM timeline WHERE run_id = ? ORDER BY id`, runID)
	return scanAll(rows, err, scanEvent)
}
