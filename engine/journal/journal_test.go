package journal_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine/journal"
	"github.com/wfrun/wfrun/runtime"
)

func entry(seq int, text string) runtime.JournalEntry {
	return runtime.JournalEntry{Seq: seq, Order: seq, Key: `{"prompt":"p"}`, AgentID: "ag_x", Status: agentapi.StatusCompleted, Text: text}
}

func record(t *testing.T, path string, entries ...runtime.JournalEntry) {
	t.Helper()
	j, err := journal.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := j.Record(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
}

func texts(entries []runtime.JournalEntry) string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Text)
	}
	return strings.Join(out, ",")
}

func TestRead_WhatRecordWroteComesBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), journal.JournalFile)
	want := entry(1, "one")
	want.Output, want.Usage, want.Worktree = []byte(`{"a":1}`), agentapi.Usage{InputTokens: 3, CostUSD: 0.5}, &agentapi.Worktree{Path: "/w", Branch: "b"}
	record(t, path, want, entry(2, "<two & three>"))
	got, err := journal.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Usage != want.Usage || string(got[0].Output) != `{"a":1}` || *got[0].Worktree != *want.Worktree || got[1].Text != "<two & three>" {
		t.Fatalf("read back %+v", got)
	}
	data, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(data), `{"v":1,"seq":1,`) || strings.Count(string(data), "\n") != 2 {
		t.Fatalf("file:\n%s", data)
	}
}

func TestRead_ToleratesWhatACrashInTheMiddleOfAWriteLeaves(t *testing.T) {
	cases := []struct {
		name, tail, want string
	}{
		{"a truncated last line", `{"v":1,"seq":3,"order":3,"key":"{\"pro`, "one,two"},
		{"a last line of garbage", "\x00\x00\x00\x00", "one,two"},
		{"a whole last line without its newline", `{"v":1,"seq":3,"order":3,"key":"k","agentId":"a","status":"completed","text":"three","usage":{"inputTokens":0,"outputTokens":0,"costUSD":0}}`, "one,two,three"},
		{"blank lines", "\n\n", "one,two"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), journal.JournalFile)
			record(t, path, entry(1, "one"), entry(2, "two"))
			f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString(c.tail)
			f.Close()
			got, err := journal.Read(path)
			if err != nil {
				t.Fatal(err)
			}
			if texts(got) != c.want {
				t.Fatalf("read %q, want %q", texts(got), c.want)
			}
			// Appending after the damage starts a line of its own.
			record(t, path, entry(4, "four"))
			got, err = journal.Read(path)
			if err != nil || texts(got) != c.want+",four" {
				t.Fatalf("after appending: %q, %v", texts(got), err)
			}
		})
	}
}

func TestRead_RefusesACorruptLineBeforeTheLast(t *testing.T) {
	path := filepath.Join(t.TempDir(), journal.JournalFile)
	record(t, path, entry(1, "one"))
	good, _ := os.ReadFile(path)
	os.WriteFile(path, append(append(good, "not json\n"...), good...), 0o600)
	_, err := journal.Read(path)
	if err == nil || !strings.Contains(err.Error(), "line 2 is not a journal entry") {
		t.Fatalf("err = %v", err)
	}
	if _, err := journal.Open(path, nil); err == nil {
		t.Fatal("Open appended to a damaged journal")
	}
}

func TestRead_RefusesANewerVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), journal.JournalFile)
	os.WriteFile(path, []byte(`{"v":2,"seq":1,"status":"completed"}`+"\n"+`{"v":1}`+"\n"), 0o600)
	if _, err := journal.Read(path); err == nil || !strings.Contains(err.Error(), "newer than this wfrun") {
		t.Fatalf("err = %v", err)
	}
}

func TestRead_TheLastLineOfASeqWins(t *testing.T) {
	path := filepath.Join(t.TempDir(), journal.JournalFile)
	failed := entry(2, "")
	failed.Status, failed.Error = agentapi.StatusFailed, "flaky"
	record(t, path, entry(1, "one"), failed, entry(2, "two again"))
	got, err := journal.Read(path)
	if err != nil || texts(got) != "one,two again" {
		t.Fatalf("%q, %v", texts(got), err)
	}
}

func TestRead_AMissingJournalIsEmpty(t *testing.T) {
	got, err := journal.Read(filepath.Join(t.TempDir(), "none.jsonl"))
	if err != nil || got != nil {
		t.Fatalf("%v, %v", got, err)
	}
}

func TestFolder(t *testing.T) {
	runs := t.TempDir()
	if _, err := journal.Create(runs, "../etc"); err == nil {
		t.Fatal("a path as run id was accepted")
	}
	if _, err := journal.OpenFolder(runs, "wf_0123456789abcdef"); err == nil || !strings.Contains(err.Error(), "has no folder") {
		t.Fatalf("err = %v", err)
	}
	f, err := journal.Create(runs, "wf_0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.WriteJSON(journal.ResultFile, map[string]int{"a": 1}); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteJSON(journal.ResultFile, map[string]int{"a": 2}); err != nil {
		t.Fatal(err)
	}
	again, err := journal.OpenFolder(runs, "wf_0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	data, err := again.ReadFile(journal.ResultFile)
	if err != nil || strings.TrimSpace(string(data)) != "{\n  \"a\": 2\n}" {
		t.Fatalf("%s, %v", data, err)
	}
	entries, _ := os.ReadDir(f.Dir())
	if len(entries) != 1 {
		t.Fatalf("the folder holds %v; a temporary file was left", entries)
	}
	st, _ := os.Stat(f.Dir())
	if st.Mode().Perm() != 0o700 {
		t.Fatalf("the folder's mode is %v", st.Mode().Perm())
	}
	log, err := f.OpenEvents()
	if err != nil {
		t.Fatal(err)
	}
	log.Write(runtime.Event{Type: runtime.EventLog, RunID: "wf_0123456789abcdef", Message: "hi"})
	log.Close()
	data, _ = f.ReadFile(journal.EventsFile)
	if !strings.Contains(string(data), `"message":"hi"`) {
		t.Fatalf("events: %s", data)
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"v":1,"seq":1,"order":1,"key":"k","agentId":"a","status":"completed","text":"t","usage":{"inputTokens":0,"outputTokens":0,"costUSD":0}}` + "\n"))
	f.Add([]byte("{\"v\":1,\"seq\":1\n{\"v\""))
	f.Add([]byte("\n\n\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), journal.JournalFile)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		entries, err := journal.Read(path)
		if err != nil {
			return
		}
		// Whatever Read accepts, Open accepts and appends to cleanly.
		j, err := journal.Open(path, entries)
		if err != nil {
			t.Fatalf("Read accepted what Open refused: %v", err)
		}
		if err := j.Record(entry(1_000_000, "new")); err != nil {
			t.Fatal(err)
		}
		j.Close()
		after, err := journal.Read(path)
		if err != nil || len(after) != len(entries)+1 || after[len(after)-1].Text != "new" {
			t.Fatalf("after appending: %d entries (had %d), %v", len(after), len(entries), err)
		}
	})
}

func TestWriteAtomic_ReplacesTheFileWholeAndLeavesNoTemporaryBehind(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "result.json")
	for _, content := range []string{"first", "second, longer"} {
		if err := journal.WriteAtomic(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); string(got) != content {
			t.Fatalf("the file holds %q, want %q", got, content)
		}
	}
	if err := journal.WriteAtomic(filepath.Join(dir, "missing", "x"), []byte("x")); err == nil {
		t.Fatal("a write into a missing folder succeeded")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("the folder holds %d entries, want only the file", len(entries))
	}
}
