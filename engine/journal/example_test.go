package journal_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine/journal"
	"github.com/wfrun/wfrun/runtime"
)

// A run's journal, written by one attempt and read by the next: a crash in
// the middle of the last write loses only that entry.
func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "runs")
	defer os.RemoveAll(dir)
	folder, _ := journal.Create(dir, "wf_0123456789abcdef")
	path := folder.Path(journal.JournalFile)

	j, _ := journal.Open(path, nil)
	_ = j.Record(runtime.JournalEntry{Seq: 1, Order: 1, Key: `{"prompt":"a"}`, Status: agentapi.StatusCompleted, Text: "A"})
	_ = j.Close()
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"v":1,"seq":2,"ord`) // the process died here
	f.Close()

	prior, _ := journal.Read(path)
	fmt.Println(len(prior), prior[0].Text, filepath.Base(path))
	// Output: 1 A journal.jsonl
}
