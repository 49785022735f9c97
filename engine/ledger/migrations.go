package ledger

// migrations are the ledger's schema, one version each, applied in order.
// A migration is never edited once released: a change is a new one.
// PRAGMA user_version is the number applied.
var migrations = []string{
	// 1: runs, their children and their timelines.
	`CREATE TABLE runs (
		id             TEXT PRIMARY KEY,
		parent_run     TEXT NOT NULL DEFAULT '', -- lineage: the run this one retries or resumes
		owner          TEXT NOT NULL,
		name           TEXT NOT NULL,
		status         TEXT NOT NULL,
		stop_reason    TEXT NOT NULL DEFAULT '',
		error_code     TEXT NOT NULL DEFAULT '',
		error          TEXT NOT NULL DEFAULT '',
		agents_spawned INTEGER NOT NULL DEFAULT 0,
		completed      INTEGER NOT NULL DEFAULT 0,
		failed         INTEGER NOT NULL DEFAULT 0,
		timed_out      INTEGER NOT NULL DEFAULT 0,
		cancelled      INTEGER NOT NULL DEFAULT 0,
		replayed       INTEGER NOT NULL DEFAULT 0,
		input_tokens   INTEGER NOT NULL DEFAULT 0,
		output_tokens  INTEGER NOT NULL DEFAULT 0,
		cost_usd       REAL NOT NULL DEFAULT 0,
		created_ms     INTEGER NOT NULL,
		updated_ms     INTEGER NOT NULL,
		ended_ms       INTEGER NOT NULL DEFAULT 0,
		lease_ms       INTEGER NOT NULL DEFAULT 0, -- the heartbeat lease: running past it means abandoned
		pid            INTEGER NOT NULL DEFAULT 0,
		host           TEXT NOT NULL DEFAULT '',
		stop_requested TEXT NOT NULL DEFAULT '', -- a stop verb's reason, for the run's process to carry out
		dir            TEXT NOT NULL DEFAULT ''
	);
	CREATE INDEX runs_by_created ON runs (created_ms);
	CREATE INDEX runs_by_status ON runs (status, lease_ms);
	CREATE INDEX runs_by_parent ON runs (parent_run);
	CREATE TABLE children (
		run_id         TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
		seq            INTEGER NOT NULL,
		agent_id       TEXT NOT NULL,
		label          TEXT NOT NULL DEFAULT '',
		phase          TEXT NOT NULL DEFAULT '',
		persona        TEXT NOT NULL DEFAULT '',
		model          TEXT NOT NULL DEFAULT '',
		status         TEXT NOT NULL,
		replayed       INTEGER NOT NULL DEFAULT 0,
		prompt_excerpt TEXT NOT NULL DEFAULT '',
		result_excerpt TEXT NOT NULL DEFAULT '',
		error          TEXT NOT NULL DEFAULT '',
		failure        TEXT NOT NULL DEFAULT '',
		input_tokens   INTEGER NOT NULL DEFAULT 0,
		output_tokens  INTEGER NOT NULL DEFAULT 0,
		cost_usd       REAL NOT NULL DEFAULT 0,
		created_ms     INTEGER NOT NULL,
		updated_ms     INTEGER NOT NULL,
		metadata       TEXT NOT NULL DEFAULT '{}',
		PRIMARY KEY (run_id, seq)
	);
	CREATE TABLE timeline (
		id     INTEGER PRIMARY KEY AUTOINCREMENT,
		run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
		at_ms  INTEGER NOT NULL,
		kind   TEXT NOT NULL,
		detail TEXT NOT NULL DEFAULT ''
	);
	CREATE INDEX timeline_by_run ON timeline (run_id, id);`,
}
