package journal_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/engine/journal"
	"github.com/wfrun/wfrun/runtime"
)

// The event log and the journal of a folder share one budget: a line that
// does not fit is not written, nothing is written after it but run.end,
// and both files stay whole lines that read back.
func TestBudget_ALineThatDoesNotFitIsNotWrittenAndTheFilesStayWhole(t *testing.T) {
	f, err := journal.Create(t.TempDir(), "wf_0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	b := journal.NewBudget(4096, 0)
	key, err := journal.NewKey(t.TempDir(), "wf_0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	j, err := f.OpenJournal(key, journal.Head{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	log, err := f.OpenEvents()
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	j.SetBudget(b)
	log.SetBudget(b)

	log.Write(runtime.Event{Type: runtime.EventRunStart, RunID: "wf_0123456789abcdef"})
	if err := j.Record(entry(1, strings.Repeat("a", 1000))); err != nil {
		t.Fatal(err)
	}
	err = j.Record(entry(2, strings.Repeat("b", 4000)))
	var full *journal.FolderFullError
	if !errors.Is(err, journal.ErrFolderFull) || !errors.As(err, &full) || full.Limit != 4096 || full.File != journal.JournalFile {
		t.Fatalf("a line past the budget: %v", err)
	}
	if err := j.Record(entry(3, "small")); !errors.Is(err, journal.ErrFolderFull) {
		t.Fatalf("a spent budget took a small line: %v", err)
	}
	log.Write(runtime.Event{Type: runtime.EventLog, RunID: "wf_0123456789abcdef", Message: "dropped"})
	log.Write(runtime.Event{Type: runtime.EventRunEnd, RunID: "wf_0123456789abcdef"})
	if !errors.Is(log.Err(), journal.ErrFolderFull) || !errors.Is(b.Spent(), journal.ErrFolderFull) {
		t.Fatalf("the log's error %v, the budget's %v", log.Err(), b.Spent())
	}

	kept, err := f.ReadJournal(key, journal.Head{})
	if err != nil || texts(kept) != strings.Repeat("a", 1000) {
		t.Fatalf("the journal keeps %d entries (%v)", len(kept), err)
	}
	data, err := f.ReadFile(journal.EventsFile)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for line := range bytes.Lines(data) {
		var ev runtime.Event
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Fatalf("events.jsonl: %v: %q", err, line)
		}
		types = append(types, string(ev.Type))
	}
	if strings.Join(types, ",") != "run.start,run.end" {
		t.Fatalf("events.jsonl has %v", types)
	}
}

// A folder continued in place starts with what its files already hold.
func TestBudget_AFolderContinuedInPlaceHasSpentWhatItHolds(t *testing.T) {
	f, err := journal.Create(t.TempDir(), "wf_0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	key, err := journal.NewKey(t.TempDir(), "wf_0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	record(t, f, key, entry(1, strings.Repeat("a", 1000)))
	if n := f.Appended(); n < 1000 || n > 1500 {
		t.Fatalf("Appended says %d bytes", n)
	}
}
