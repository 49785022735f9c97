package ledger

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
)

func TestALedgerOfTheFirstVersionIsUpgradedWithItsRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{migrations[0], "PRAGMA user_version = 1",
		`INSERT INTO runs (id, owner, name, status, created_ms, updated_ms) VALUES ('wf_0123456789abcdef', 'cli', 'old', 'completed', 1, 1)`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	l, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if v, _ := l.SchemaVersion(context.Background()); v != len(migrations) {
		t.Fatalf("version %d", v)
	}
	if r, err := l.Get(context.Background(), "wf_0123456789abcdef"); err != nil || r.Name != "old" {
		t.Fatalf("the old run: %+v %v", r, err)
	}
	if all, err := l.Subagents(context.Background(), "cli"); err != nil || len(all) != 0 {
		t.Fatalf("sub-agents after the upgrade: %v %v", all, err)
	}
}
