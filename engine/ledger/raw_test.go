package ledger_test

import (
	"database/sql"
	"testing"
)

// openRaw opens the database file without the ledger, to check or damage it.
func openRaw(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	return db
}
