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

	// 2: continuable sub-agents, their inboxes (one row per accepted
	// message, which becomes one turn) and their saved histories.
	`CREATE TABLE subagents (
		id            TEXT PRIMARY KEY,
		seq           INTEGER NOT NULL UNIQUE, -- creation order: the stable order of listings
		owner         TEXT NOT NULL,
		parent        TEXT NOT NULL DEFAULT '', -- the sub-agent that started it; '' for the owner's own
		depth         INTEGER NOT NULL,
		status        TEXT NOT NULL,
		provider      TEXT NOT NULL,
		label         TEXT NOT NULL DEFAULT '',
		persona       TEXT NOT NULL DEFAULT '',
		model         TEXT NOT NULL DEFAULT '',
		request       TEXT NOT NULL DEFAULT '{}', -- the start request, to resume it
		turns         INTEGER NOT NULL DEFAULT 0, -- messages accepted
		last_turn     INTEGER NOT NULL DEFAULT 0, -- the last turn that ended
		last_status   TEXT NOT NULL DEFAULT '',
		last_report   TEXT NOT NULL DEFAULT '',
		last_error    TEXT NOT NULL DEFAULT '',
		input_tokens  INTEGER NOT NULL DEFAULT 0,
		output_tokens INTEGER NOT NULL DEFAULT 0,
		cost_usd      REAL NOT NULL DEFAULT 0,
		worktree_path TEXT NOT NULL DEFAULT '',
		worktree_branch TEXT NOT NULL DEFAULT '',
		dir           TEXT NOT NULL DEFAULT '',
		created_ms    INTEGER NOT NULL,
		updated_ms    INTEGER NOT NULL,
		ended_ms      INTEGER NOT NULL DEFAULT 0,
		holder        TEXT NOT NULL DEFAULT '', -- the process that has it loaded
		lease_ms      INTEGER NOT NULL DEFAULT 0, -- loaded past it means that process died
		pid           INTEGER NOT NULL DEFAULT 0,
		host          TEXT NOT NULL DEFAULT ''
	);
	CREATE INDEX subagents_by_owner ON subagents (owner, seq);
	CREATE INDEX subagents_by_lease ON subagents (status, lease_ms);
	CREATE TABLE subagent_turns (
		subagent_id   TEXT NOT NULL REFERENCES subagents (id) ON DELETE CASCADE,
		turn          INTEGER NOT NULL,
		message       TEXT NOT NULL,
		status        TEXT NOT NULL,
		text          TEXT NOT NULL DEFAULT '',
		output        TEXT NOT NULL DEFAULT '',
		failure       TEXT NOT NULL DEFAULT '',
		error         TEXT NOT NULL DEFAULT '',
		note          TEXT NOT NULL DEFAULT '',
		input_tokens  INTEGER NOT NULL DEFAULT 0,
		output_tokens INTEGER NOT NULL DEFAULT 0,
		cost_usd      REAL NOT NULL DEFAULT 0,
		created_ms    INTEGER NOT NULL,
		started_ms    INTEGER NOT NULL DEFAULT 0,
		ended_ms      INTEGER NOT NULL DEFAULT 0,
		PRIMARY KEY (subagent_id, turn)
	);
	CREATE INDEX subagent_turns_by_status ON subagent_turns (subagent_id, status, turn);
	CREATE TABLE subagent_history (
		subagent_id TEXT PRIMARY KEY REFERENCES subagents (id) ON DELETE CASCADE,
		turn        INTEGER NOT NULL, -- the last turn it holds
		data        BLOB NOT NULL      -- the provider's snapshot
	);`,
}
