package ledger

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Fresh reports whether Open created the ledger's schema: the file was
// missing or empty, so whatever it held before — if anything — is lost,
// and the caller may rebuild the rows from the run folders (Restore).
func (l *Ledger) Fresh() bool { return l.fresh }

// notADatabase reports whether err is SQLite's answer for a file that is
// not a database, or one damaged beyond reading.
func notADatabase(err error) bool {
	var coded interface{ Code() int }
	if errors.As(err, &coded) {
		switch coded.Code() & 0xff {
		case 26, 11: // SQLITE_NOTADB, SQLITE_CORRUPT
			return true
		}
	}
	return false
}

// markAbandoned makes a running run abandoned, with its pending and
// running children, and says why on its timeline.
func markAbandoned(tx *sql.Tx, runID string, now time.Time, detail string) error {
	if _, err := tx.Exec(`UPDATE runs SET status = ?, updated_ms = ? WHERE id = ?`, string(RunAbandoned), ms(now), runID); err != nil {
		return err
	}
	if _, err := tx.Exec(`UPDATE children SET status = ?, updated_ms = ? WHERE run_id = ? AND status IN (?, ?)`,
		string(ChildAbandoned), ms(now), runID, string(ChildPending), string(ChildRunning)); err != nil {
		return err
	}
	return appendEvent(tx, runID, now, KindAbandoned, detail)
}

// Abandon marks runID abandoned at once, lease or not, when it is still
// running under process pid on host: the caller has seen that process
// gone (and its run lock free). A run that another process has claimed
// since (continue) is left alone; ok says whether the run was marked.
func (l *Ledger) Abandon(ctx context.Context, runID string, pid int, host, detail string) (ok bool, err error) {
	now := l.now()
	err = l.tx(ctx, func(tx *sql.Tx) error {
		var one int
		err := tx.QueryRow(`SELECT 1 FROM runs WHERE id = ? AND status = ? AND pid = ? AND host = ?`,
			runID, string(RunRunning), pid, host).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		ok = true
		return markAbandoned(tx, runID, now, detail)
	})
	return ok, err
}

// Restore writes the row of a run the ledger lost, rebuilt from its
// folder, with its children, and notes on its timeline that it was
// rebuilt. A run the ledger holds already is left as it is; ok says
// whether the row was written.
func (l *Ledger) Restore(ctx context.Context, r Run, children []Child) (ok bool, err error) {
	if !r.Status.Valid() {
		return false, fmt.Errorf("a run cannot be restored as %q", r.Status)
	}
	now := l.now()
	if r.CreatedAt.IsZero() {
		r.CreatedAt = now
	}
	if r.UpdatedAt.IsZero() {
		r.UpdatedAt = r.CreatedAt
	}
	var ended int64
	if r.EndedAt != nil {
		ended = ms(*r.EndedAt)
	}
	err = l.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.Exec(`INSERT OR IGNORE INTO runs (id, parent_run, owner, name, status, stop_reason, error_code, error,
			agents_spawned, completed, failed, timed_out, cancelled, replayed, input_tokens, output_tokens, cost_usd,
			created_ms, updated_ms, ended_ms, lease_ms, pid, host, dir)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			r.ID, r.ParentRun, r.Owner, r.Name, string(r.Status), r.StopReason, r.ErrorCode, r.Error,
			r.AgentsSpawned, r.Agents.Completed, r.Agents.Failed, r.Agents.TimedOut, r.Agents.Cancelled, r.Agents.Replayed,
			r.Usage.InputTokens, r.Usage.OutputTokens, r.Usage.CostUSD,
			ms(r.CreatedAt), ms(r.UpdatedAt), ended, ms(r.LeaseUntil), r.PID, r.Host, r.Dir)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		ok = true
		for i := range children {
			children[i].RunID = r.ID
		}
		if err := upsertChildren(tx, children, now); err != nil {
			return err
		}
		return appendEvent(tx, r.ID, now, KindRebuilt, "the ledger was lost and this row was rebuilt from the run's folder")
	})
	return ok, err
}
