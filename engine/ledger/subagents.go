package ledger

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/wfrun/wfrun/agentapi"
)

// Continuable sub-agents (engine/subagent keeps them; docs/subagents.md).
// A sub-agent is a row of subagents; every message it accepts is a row of
// subagent_turns, queued until it becomes that turn; its history (the
// provider's snapshot) is one row of subagent_history, saved in the same
// transaction as the turn that produced it, so that the history and the
// turns never disagree.
//
// A process that has a sub-agent loaded holds it: its holder and a lease
// that the process renews (RenewSubagents). A sub-agent whose lease has
// expired while it was loaded — its process died — is ready again the next
// time anyone sweeps (SweepSubagents, HoldSubagent), and the turn it was
// running is abandoned.

// ErrNoSubagent is returned (wrapped) for a sub-agent the ledger does not
// hold.
var ErrNoSubagent = errors.New("no such sub-agent in the ledger")

// SubagentStatus is where a continuable sub-agent is in its life.
type SubagentStatus string

// The sub-agent statuses. running, idle and ready are its ordinary life;
// failed and cancelled end it.
const (
	SubagentRunning   SubagentStatus = "running"                                // loaded, a turn is running
	SubagentIdle      SubagentStatus = "idle"                                   // loaded, between turns
	SubagentReady     SubagentStatus = "ready"                                  // in storage only: a message wakes it
	SubagentFailed    SubagentStatus = SubagentStatus(agentapi.StatusFailed)    // its provider broke or its history cannot be resumed
	SubagentCancelled SubagentStatus = SubagentStatus(agentapi.StatusCancelled) // closed by its parent
)

// Ended reports whether s ends the sub-agent's life.
func (s SubagentStatus) Ended() bool { return s == SubagentFailed || s == SubagentCancelled }

// Valid reports whether s is one of the sub-agent statuses.
func (s SubagentStatus) Valid() bool {
	switch s {
	case SubagentRunning, SubagentIdle, SubagentReady, SubagentFailed, SubagentCancelled:
		return true
	}
	return false
}

// TurnStatus is where one accepted message is: queued, running, or how
// its turn ended. A turn lives as a child does, so it has a child's
// statuses, queued standing for pending.
type TurnStatus = ChildStatus

// The turn statuses.
const (
	TurnQueued    TurnStatus = "queued"
	TurnRunning              = ChildRunning
	TurnCompleted            = ChildCompleted
	TurnFailed               = ChildFailed
	TurnTimedOut             = ChildTimedOut
	TurnCancelled            = ChildCancelled
	TurnAbandoned            = ChildAbandoned
)

// ReportRunes is how much of a turn's answer a sub-agent's row keeps as
// its last report; the turn's row keeps it whole.
const ReportRunes = 2000

// Subagent is one continuable sub-agent's row.
type Subagent struct {
	ID string `json:"childId"`
	// Seq orders sub-agents by creation; listings keep this order.
	Seq   int64  `json:"seq"`
	Owner string `json:"owner"`
	// Parent is the sub-agent that started this one, "" when the owner did.
	Parent   string         `json:"parent,omitempty"`
	Depth    int            `json:"depth"`
	Status   SubagentStatus `json:"status"`
	Provider string         `json:"provider"`
	Label    string         `json:"label,omitempty"`
	Persona  string         `json:"agentType,omitempty"`
	Model    string         `json:"model,omitempty"`
	// Request is the start request as its writer keeps it, to resume.
	Request json.RawMessage `json:"-"`
	// Turns counts the accepted messages; LastTurn is the last turn that
	// ended, with its status, its answer (cut at ReportRunes) and error.
	Turns      int                `json:"turns"`
	LastTurn   int                `json:"lastTurn,omitempty"`
	LastStatus TurnStatus         `json:"lastStatus,omitempty"`
	LastReport string             `json:"lastReport,omitempty"`
	LastError  string             `json:"lastError,omitempty"`
	Usage      agentapi.Usage     `json:"usage"`
	Worktree   *agentapi.Worktree `json:"worktree,omitempty"`
	Dir        string             `json:"dir,omitempty"`
	CreatedAt  time.Time          `json:"createdAt"`
	UpdatedAt  time.Time          `json:"updatedAt"`
	EndedAt    *time.Time         `json:"endedAt,omitempty"`
	// Holder is the process that has it loaded ("" when none), until
	// LeaseUntil unless it renews the lease.
	Holder     string    `json:"-"`
	LeaseUntil time.Time `json:"-"`
	PID        int       `json:"-"`
	Host       string    `json:"-"`
}

// Turn is one accepted message and, once it has run, its outcome.
type Turn struct {
	Subagent string          `json:"childId"`
	N        int             `json:"turn"`
	Message  string          `json:"message"`
	Status   TurnStatus      `json:"status"`
	Text     string          `json:"text,omitempty"`
	Output   json.RawMessage `json:"output,omitempty"`
	Failure  string          `json:"failure,omitempty"`
	Error    string          `json:"error,omitempty"`
	Note     string          `json:"note,omitempty"`
	Usage    agentapi.Usage  `json:"usage"`
	Created  time.Time       `json:"createdAt"`
	Started  *time.Time      `json:"startedAt,omitempty"`
	Ended    *time.Time      `json:"endedAt,omitempty"`
}

// durableTx runs fn in a write transaction whose commit is fsynced
// (synchronous FULL on a connection of its own): what it writes survives
// a crash of the machine, not only of the process, before it returns.
func (l *Ledger) durableTx(ctx context.Context, fn func(*sql.Tx) error) error {
	conn, err := l.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA synchronous = FULL"); err != nil {
		return err
	}
	// The connection goes back to the pool at NORMAL even when ctx ends.
	defer conn.ExecContext(context.WithoutCancel(ctx), "PRAGMA synchronous = NORMAL")
	return inTx(ctx, conn, fn)
}

// CreateSubagent records a sub-agent that this process (holder) has just
// loaded, idle, with its first message queued as turn 1, in one durable
// transaction. s.Seq is assigned; the rest of s is its writer's.
func (l *Ledger) CreateSubagent(ctx context.Context, s Subagent, holder, first string) (Subagent, error) {
	now := l.now()
	host, _ := os.Hostname()
	req := string(s.Request)
	if req == "" {
		req = "{}"
	}
	err := l.durableTx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRow(`SELECT COALESCE(MAX(seq), 0) + 1 FROM subagents`).Scan(&s.Seq); err != nil {
			return err
		}
		if _, err := tx.Exec(`INSERT INTO subagents (id, seq, owner, parent, depth, status, provider, label, persona, model, request,
			turns, dir, created_ms, updated_ms, holder, lease_ms, pid, host) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?)`,
			s.ID, s.Seq, s.Owner, s.Parent, s.Depth, string(SubagentIdle), s.Provider, s.Label, s.Persona, s.Model, req,
			s.Dir, ms(now), ms(now), holder, ms(now.Add(l.lease)), os.Getpid(), host); err != nil {
			return err
		}
		_, err := tx.Exec(`INSERT INTO subagent_turns (subagent_id, turn, message, status, created_ms) VALUES (?, 1, ?, ?, ?)`,
			s.ID, first, string(TurnQueued), ms(now))
		return err
	})
	if err != nil {
		return s, fmt.Errorf("cannot record the sub-agent %s: %w", s.ID, err)
	}
	s.Status, s.Turns, s.CreatedAt, s.UpdatedAt = SubagentIdle, 1, fromMs(ms(now)), fromMs(ms(now))
	return s, nil
}

// Enqueue appends message to a sub-agent's inbox as its next turn, in a
// durable transaction, and returns the turn's number. It refuses a
// sub-agent that has ended, one that holder does not hold, and an inbox
// that already holds maxQueued messages not yet taken up (0: no limit).
func (l *Ledger) Enqueue(ctx context.Context, id, holder, message string, maxQueued int) (int, error) {
	var n int
	err := l.durableTx(ctx, func(tx *sql.Tx) error {
		s, err := getSubagent(ctx, tx, id)
		if err != nil {
			return err
		}
		if s.Status.Ended() {
			return fmt.Errorf("the sub-agent %s is %s: it takes no more messages; start a new one", id, s.Status)
		}
		if s.Holder != holder {
			return fmt.Errorf("the sub-agent %s is not loaded by this process", id)
		}
		if maxQueued > 0 {
			var queued int
			if err := tx.QueryRow(`SELECT COUNT(*) FROM subagent_turns WHERE subagent_id = ? AND status = ?`, id, string(TurnQueued)).Scan(&queued); err != nil {
				return err
			}
			if queued >= maxQueued {
				return &InboxFullError{ID: id, Queued: queued}
			}
		}
		n = s.Turns + 1
		now := l.now()
		if _, err := tx.Exec(`INSERT INTO subagent_turns (subagent_id, turn, message, status, created_ms) VALUES (?, ?, ?, ?, ?)`,
			id, n, message, string(TurnQueued), ms(now)); err != nil {
			return err
		}
		_, err = tx.Exec(`UPDATE subagents SET turns = ?, updated_ms = ? WHERE id = ?`, n, ms(now), id)
		return err
	})
	return n, err
}

// InboxFullError is Enqueue's error for an inbox at its limit.
type InboxFullError struct {
	ID     string
	Queued int
}

func (e *InboxFullError) Error() string {
	return fmt.Sprintf("the sub-agent %s already has %d messages waiting, the most its inbox holds: wait for its turns (subagent_result) before sending more", e.ID, e.Queued)
}

// ClaimTurn takes up the oldest queued message of a sub-agent that holder
// holds: the turn becomes running and so does the sub-agent. ok is false
// when nothing is queued.
func (l *Ledger) ClaimTurn(ctx context.Context, id, holder string) (t Turn, ok bool, err error) {
	now := l.now()
	err = l.tx(ctx, func(tx *sql.Tx) error {
		row := tx.QueryRow(`SELECT `+turnColumns+` FROM subagent_turns WHERE subagent_id = ? AND status = ? ORDER BY turn LIMIT 1`,
			id, string(TurnQueued))
		t, err = scanTurn(row)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		res, err := tx.Exec(`UPDATE subagents SET status = ?, updated_ms = ? WHERE id = ? AND holder = ? AND status IN (?, ?)`,
			string(SubagentRunning), ms(now), id, holder, string(SubagentIdle), string(SubagentRunning))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("the sub-agent %s is not loaded by this process, or has ended", id)
		}
		if _, err := tx.Exec(`UPDATE subagent_turns SET status = ?, started_ms = ? WHERE subagent_id = ? AND turn = ?`,
			string(TurnRunning), ms(now), id, t.N); err != nil {
			return err
		}
		ok = true
		t.Status = TurnRunning
		st := fromMs(ms(now))
		t.Started = &st
		return nil
	})
	return t, ok, err
}

// FinishTurn records how turn t ended (t.Status, its answer, error and
// usage), adds its usage to the sub-agent's, makes it its last report, and
// saves history (the provider's snapshot after the turn; nil keeps the one
// saved before), all in one transaction. The sub-agent is idle again
// unless it has ended meanwhile. wt is its worktree, if it has one.
func (l *Ledger) FinishTurn(ctx context.Context, id string, t Turn, history json.RawMessage, wt *agentapi.Worktree) error {
	if !t.Status.Ended() {
		return fmt.Errorf("a turn cannot finish as %q", t.Status)
	}
	now := l.now()
	return l.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.Exec(`UPDATE subagent_turns SET status = ?, text = ?, output = ?, failure = ?, error = ?, note = ?,
			input_tokens = ?, output_tokens = ?, cost_usd = ?, ended_ms = ? WHERE subagent_id = ? AND turn = ?`,
			string(t.Status), t.Text, string(t.Output), t.Failure, t.Error, t.Note, t.Usage.InputTokens, t.Usage.OutputTokens,
			t.Usage.CostUSD, ms(now), id, t.N); err != nil {
			return err
		}
		report := t.Text
		if len(t.Output) > 0 {
			report = string(t.Output)
		}
		var path, branch string
		if wt != nil {
			path, branch = wt.Path, wt.Branch
		}
		if _, err := tx.Exec(`UPDATE subagents SET status = CASE WHEN status = ? THEN ? ELSE status END,
			last_turn = ?, last_status = ?, last_report = ?, last_error = ?,
			input_tokens = input_tokens + ?, output_tokens = output_tokens + ?, cost_usd = cost_usd + ?,
			worktree_path = CASE WHEN ? != '' THEN ? ELSE worktree_path END,
			worktree_branch = CASE WHEN ? != '' THEN ? ELSE worktree_branch END, updated_ms = ? WHERE id = ?`,
			string(SubagentRunning), string(SubagentIdle), t.N, string(t.Status), Report(report), t.Error,
			t.Usage.InputTokens, t.Usage.OutputTokens, t.Usage.CostUSD, path, path, branch, branch, ms(now), id); err != nil {
			return err
		}
		if history == nil {
			return nil
		}
		_, err := tx.Exec(`INSERT INTO subagent_history (subagent_id, turn, data) VALUES (?, ?, ?)
			ON CONFLICT (subagent_id) DO UPDATE SET turn = excluded.turn, data = excluded.data`, id, t.N, []byte(history))
		return err
	})
}

// HoldSubagent loads a sub-agent for holder: a ready one becomes idle,
// held by holder with a fresh lease. One whose holder's lease has expired
// (its process died) is taken over: the turn it was running is abandoned.
// It refuses a sub-agent that has ended or that another live process
// holds, with a sentence. It returns the row as it is now and the saved
// history (nil when no turn has ended yet).
func (l *Ledger) HoldSubagent(ctx context.Context, id, holder string) (Subagent, json.RawMessage, error) {
	var s Subagent
	var history json.RawMessage
	now := l.now()
	host, _ := os.Hostname()
	err := l.tx(ctx, func(tx *sql.Tx) error {
		var err error
		if s, err = getSubagent(ctx, tx, id); err != nil {
			return err
		}
		switch {
		case s.Status.Ended():
			return fmt.Errorf("the sub-agent %s is %s: it cannot be woken; start a new one", id, s.Status)
		case s.Holder == holder:
		case s.Holder != "" && !s.LeaseUntil.Before(now):
			return &HeldError{ID: id, PID: s.PID, Host: s.Host}
		case s.Holder != "":
			if err := abandonTurns(tx, id, now); err != nil {
				return err
			}
		}
		if s.Holder != holder {
			if _, err := tx.Exec(`UPDATE subagents SET status = ?, holder = ?, lease_ms = ?, pid = ?, host = ?, updated_ms = ? WHERE id = ?`,
				string(SubagentIdle), holder, ms(now.Add(l.lease)), os.Getpid(), host, ms(now), id); err != nil {
				return err
			}
			s.Status, s.Holder, s.LeaseUntil, s.PID, s.Host = SubagentIdle, holder, now.Add(l.lease), os.Getpid(), host
		}
		err = tx.QueryRow(`SELECT data FROM subagent_history WHERE subagent_id = ?`, id).Scan(&history)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		return err
	})
	return s, history, err
}

// HeldError is HoldSubagent's error for a sub-agent another live process
// has loaded.
type HeldError struct {
	ID   string
	PID  int
	Host string
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("the sub-agent %s is loaded by another wfrun process (pid %d on %s): talk to it through that process's server, or wait until that process ends", e.ID, e.PID, e.Host)
}

// abandonTurns marks the running turn of a sub-agent whose process died.
func abandonTurns(tx *sql.Tx, id string, now time.Time) error {
	_, err := tx.Exec(`UPDATE subagent_turns SET status = ?, error = ?, ended_ms = ? WHERE subagent_id = ? AND status = ?`,
		string(TurnAbandoned), "the process running this turn died before it ended; send the message again to have it done", ms(now), id, string(TurnRunning))
	return err
}

// ReleaseSubagent unloads a sub-agent holder holds: it is ready again,
// held by nobody. A sub-agent that has ended keeps its status.
func (l *Ledger) ReleaseSubagent(ctx context.Context, id, holder string) error {
	return l.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(`UPDATE subagents SET status = CASE WHEN status IN (?, ?) THEN ? ELSE status END,
			holder = '', lease_ms = 0, updated_ms = ? WHERE id = ? AND holder = ?`,
			string(SubagentRunning), string(SubagentIdle), string(SubagentReady), ms(l.now()), id, holder)
		return err
	})
}

// RenewSubagents extends the lease of every sub-agent holder holds.
func (l *Ledger) RenewSubagents(ctx context.Context, holder string) error {
	now := l.now()
	return l.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(`UPDATE subagents SET lease_ms = ? WHERE holder = ? AND status IN (?, ?)`,
			ms(now.Add(l.lease)), holder, string(SubagentRunning), string(SubagentIdle))
		return err
	})
}

// SweepSubagents makes ready every loaded sub-agent whose holder's lease
// has expired (its process died), abandoning the turn it was running, and
// returns how many it found.
func (l *Ledger) SweepSubagents(ctx context.Context) (int, error) {
	now := l.now()
	var n int
	err := l.tx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.Query(`SELECT id FROM subagents WHERE status IN (?, ?) AND lease_ms < ?`,
			string(SubagentRunning), string(SubagentIdle), ms(now))
		ids, err := scanAll(rows, err, func(s scanner) (id string, err error) { return id, s.Scan(&id) })
		if err != nil {
			return err
		}
		for _, id := range ids {
			if err := abandonTurns(tx, id, now); err != nil {
				return err
			}
			if _, err := tx.Exec(`UPDATE subagents SET status = ?, holder = '', lease_ms = 0, updated_ms = ? WHERE id = ?`,
				string(SubagentReady), ms(now), id); err != nil {
				return err
			}
		}
		n = len(ids)
		return nil
	})
	return n, err
}

// EndSubagent ends a sub-agent's life with status (failed or cancelled)
// and reason: the messages still queued are cancelled with it, and nobody
// holds it any more. A sub-agent that has already ended is left alone.
func (l *Ledger) EndSubagent(ctx context.Context, id string, status SubagentStatus, reason string) error {
	if !status.Ended() {
		return fmt.Errorf("a sub-agent cannot end as %q", status)
	}
	now := l.now()
	return l.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.Exec(`UPDATE subagents SET status = ?, last_error = CASE WHEN ? != '' THEN ? ELSE last_error END,
			holder = '', lease_ms = 0, updated_ms = ?, ended_ms = ? WHERE id = ? AND status NOT IN (?, ?)`,
			string(status), reason, reason, ms(now), ms(now), id, string(SubagentFailed), string(SubagentCancelled))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		_, err = tx.Exec(`UPDATE subagent_turns SET status = ?, error = ?, ended_ms = ? WHERE subagent_id = ? AND status IN (?, ?)`,
			string(TurnCancelled), "the sub-agent ended before this message was answered: "+reason, ms(now), id,
			string(TurnQueued), string(TurnRunning))
		return err
	})
}

// SetSubagentWorktree records the worktree a sub-agent left when it ended
// (nil: none, it was removed).
func (l *Ledger) SetSubagentWorktree(ctx context.Context, id string, wt *agentapi.Worktree) error {
	var path, branch string
	if wt != nil {
		path, branch = wt.Path, wt.Branch
	}
	return l.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(`UPDATE subagents SET worktree_path = ?, worktree_branch = ?, updated_ms = ? WHERE id = ?`,
			path, branch, ms(l.now()), id)
		return err
	})
}

const subagentColumns = `id, seq, owner, parent, depth, status, provider, label, persona, model, request, turns, last_turn,
	last_status, last_report, last_error, input_tokens, output_tokens, cost_usd, worktree_path, worktree_branch, dir,
	created_ms, updated_ms, ended_ms, holder, lease_ms, pid, host`

func scanSubagent(sc scanner) (Subagent, error) {
	var s Subagent
	var status, last, req, path, branch string
	var created, updated, ended, lease int64
	err := sc.Scan(&s.ID, &s.Seq, &s.Owner, &s.Parent, &s.Depth, &status, &s.Provider, &s.Label, &s.Persona, &s.Model, &req,
		&s.Turns, &s.LastTurn, &last, &s.LastReport, &s.LastError, &s.Usage.InputTokens, &s.Usage.OutputTokens, &s.Usage.CostUSD,
		&path, &branch, &s.Dir, &created, &updated, &ended, &s.Holder, &lease, &s.PID, &s.Host)
	s.Status, s.LastStatus, s.Request = SubagentStatus(status), TurnStatus(last), json.RawMessage(req)
	s.CreatedAt, s.UpdatedAt, s.LeaseUntil = fromMs(created), fromMs(updated), fromMs(lease)
	if ended != 0 {
		e := fromMs(ended)
		s.EndedAt = &e
	}
	if path != "" {
		s.Worktree = &agentapi.Worktree{Path: path, Branch: branch}
	}
	return s, err
}

func getSubagent(ctx context.Context, q querier, id string) (Subagent, error) {
	s, err := scanSubagent(q.QueryRowContext(ctx, `SELECT `+subagentColumns+` FROM subagents WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return s, fmt.Errorf("sub-agent %s: %w", id, ErrNoSubagent)
	}
	return s, err
}

// GetSubagent returns the sub-agent id.
func (l *Ledger) GetSubagent(ctx context.Context, id string) (Subagent, error) {
	return getSubagent(ctx, l.db, id)
}

// Subagents returns owner's sub-agents in creation order.
func (l *Ledger) Subagents(ctx context.Context, owner string) ([]Subagent, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT `+subagentColumns+` FROM subagents WHERE owner = ? ORDER BY seq`, owner)
	return scanAll(rows, err, scanSubagent)
}

const turnColumns = `subagent_id, turn, message, status, text, output, failure, error, note, input_tokens, output_tokens,
	cost_usd, created_ms, started_ms, ended_ms`

func scanTurn(sc scanner) (Turn, error) {
	var t Turn
	var status, output string
	var created, started, ended int64
	err := sc.Scan(&t.Subagent, &t.N, &t.Message, &status, &t.Text, &output, &t.Failure, &t.Error, &t.Note,
		&t.Usage.InputTokens, &t.Usage.OutputTokens, &t.Usage.CostUSD, &created, &started, &ended)
	t.Status, t.Created = TurnStatus(status), fromMs(created)
	if output != "" {
		t.Output = json.RawMessage(output)
	}
	if started != 0 {
		v := fromMs(started)
		t.Started = &v
	}
	if ended != 0 {
		v := fromMs(ended)
		t.Ended = &v
	}
	return t, err
}

// Turns returns a sub-agent's turns in order, queued ones included.
func (l *Ledger) Turns(ctx context.Context, id string) ([]Turn, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT `+turnColumns+` FROM subagent_turns WHERE subagent_id = ? ORDER BY turn`, id)
	return scanAll(rows, err, scanTurn)
}

// GetTurn returns turn n of a sub-agent.
func (l *Ledger) GetTurn(ctx context.Context, id string, n int) (Turn, error) {
	t, err := scanTurn(l.db.QueryRowContext(ctx, `SELECT `+turnColumns+` FROM subagent_turns WHERE subagent_id = ? AND turn = ?`, id, n))
	if errors.Is(err, sql.ErrNoRows) {
		return t, fmt.Errorf("sub-agent %s has no turn %d", id, n)
	}
	return t, err
}

// History returns a sub-agent's saved history (the provider's snapshot)
// and the last turn it holds; nil and 0 before any turn has ended.
func (l *Ledger) History(ctx context.Context, id string) (json.RawMessage, int, error) {
	var data []byte
	var turn int
	err := l.db.QueryRowContext(ctx, `SELECT data, turn FROM subagent_history WHERE subagent_id = ?`, id).Scan(&data, &turn)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, nil
	}
	return data, turn, err
}

// Queued counts a sub-agent's messages not taken up yet.
func (l *Ledger) Queued(ctx context.Context, id string) (int, error) {
	var n int
	err := l.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM subagent_turns WHERE subagent_id = ? AND status = ?`, id, string(TurnQueued)).Scan(&n)
	return n, err
}

// Report is a turn's answer as a sub-agent's row keeps it for its last
// report: the first ReportRunes characters and an ellipsis, or the whole
// answer when it is shorter.
func Report(answer string) string {
	if utf8.RuneCountInString(answer) <= ReportRunes {
		return answer
	}
	return strings.TrimSpace(string([]rune(answer)[:ReportRunes])) + "…"
}
