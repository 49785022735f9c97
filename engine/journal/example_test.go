package journal_test

import (
	"fmt"
	"os"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine/journal"
	"github.com/wfrun/wfrun/runtime"
)

// A run's journal, written by one attempt and read by the next: a crash in
// the middle of the last write loses only that entry, and a line written
// by anything without the run's key is refused.
func ExampleFolder_OpenJournal() {
	runs, _ := os.MkdirTemp("", "runs")
	state, _ := os.MkdirTemp("", "state")
	defer os.RemoveAll(runs)
	defer os.RemoveAll(state)
	folder, _ := journal.Create(runs, "wf_0123456789abcdef")
	key, _ := journal.NewKey(state, "wf_0123456789abcdef")

	j, _ := folder.OpenJournal(key, journal.Head{}, nil)
	_ = j.Record(runtime.JournalEntry{Seq: 1, Order: 1, Key: `{"prompt":"a"}`, Status: agentapi.StatusCompleted, Text: "A"})
	_ = j.Close()
	f, _ := os.OpenFile(folder.Path(journal.JournalFile), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"v":2,"seq":2,"ord`) // the process died here
	f.Close()

	prior, _ := folder.ReadJournal(key, journal.Head{})
	fmt.Println(len(prior), prior[0].Text)

	f, _ = os.OpenFile(folder.Path(journal.JournalFile), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("\n" + `{"v":2,"seq":2,"order":2,"key":"k","agentId":"a","status":"completed","text":"forged","mac":"00"}` + "\n")
	f.Close()
	_, err := folder.ReadJournal(key, journal.Head{})
	fmt.Println(err != nil)
	// Output:
	// 1 A
	// true
}
