package journal_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine/journal"
	"github.com/wfrun/wfrun/internal/nofollow"
	"github.com/wfrun/wfrun/runtime"
)

const runID = "wf_0123456789abcdef"

func entry(seq int, text string) runtime.JournalEntry {
	return runtime.JournalEntry{Seq: seq, Order: seq, Key: `{"prompt":"p"}`, AgentID: "ag_x", Status: agentapi.StatusCompleted, Text: text}
}

// newRun makes a run folder and its key in temporary folders.
func newRun(t *testing.T) (*journal.Folder, journal.Key) {
	t.Helper()
	folder, err := journal.Create(t.TempDir(), runID)
	if err != nil {
		t.Fatal(err)
	}
	key, err := journal.NewKey(t.TempDir(), runID)
	if err != nil {
		t.Fatal(err)
	}
	return folder, key
}

func record(t *testing.T, folder *journal.Folder, key journal.Key, entries ...runtime.JournalEntry) {
	t.Helper()
	j, err := folder.OpenJournal(key, journal.Head{}, nil)
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

func appendRaw(t *testing.T, folder *journal.Folder, s string) {
	t.Helper()
	f, err := os.OpenFile(folder.Path(journal.JournalFile), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(s)
	f.Close()
}

func texts(entries []runtime.JournalEntry) string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Text)
	}
	return strings.Join(out, ",")
}

func journalLines(t *testing.T, folder *journal.Folder) []string {
	t.Helper()
	data, err := os.ReadFile(folder.Path(journal.JournalFile))
	if err != nil {
		t.Fatal(err)
	}
	return strings.SplitAfter(string(data), "\n")
}

func TestReadJournal_WhatRecordWroteComesBack(t *testing.T) {
	folder, key := newRun(t)
	want := entry(1, "one")
	want.Output, want.Usage, want.Worktree = []byte(`{"a":1}`), agentapi.Usage{InputTokens: 3, CostUSD: 0.5}, &agentapi.Worktree{Path: "/w", Branch: "b"}
	record(t, folder, key, want, entry(2, "<two & three>"))
	got, err := folder.ReadJournal(key, journal.Head{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Usage != want.Usage || string(got[0].Output) != `{"a":1}` || *got[0].Worktree != *want.Worktree || got[1].Text != "<two & three>" {
		t.Fatalf("read back %+v", got)
	}
	data, _ := os.ReadFile(folder.Path(journal.JournalFile))
	if !strings.HasPrefix(string(data), `{"v":2,"seq":1,`) || strings.Count(string(data), "\n") != 2 || strings.Count(string(data), `"mac":"`) != 2 {
		t.Fatalf("file:\n%s", data)
	}
}

func TestReadJournal_ToleratesWhatACrashInTheMiddleOfAWriteLeaves(t *testing.T) {
	whole := func(t *testing.T, folder *journal.Folder, key journal.Key) string {
		// The line a third Record writes, without its newline: a write
		// whose last byte was lost.
		other := t.TempDir()
		f, _ := journal.Create(other, runID)
		_ = os.WriteFile(f.Path(journal.JournalFile), []byte(strings.Join(journalLines(t, folder), "")), 0o600)
		record(t, f, key, entry(3, "three"))
		lines := journalLines(t, f)
		return strings.TrimSuffix(lines[2], "\n")
	}
	cases := []struct {
		name string
		tail func(*testing.T, *journal.Folder, journal.Key) string
		want string
	}{
		{"a truncated last line", func(*testing.T, *journal.Folder, journal.Key) string {
			return `{"v":2,"seq":3,"order":3,"key":"{\"pro`
		}, "one,two"},
		{"a last line of zeros", func(*testing.T, *journal.Folder, journal.Key) string { return "\x00\x00\x00\x00" }, "one,two"},
		{"a whole last line without its newline", whole, "one,two,three"},
		{"blank lines", func(*testing.T, *journal.Folder, journal.Key) string { return "\n\n" }, "one,two"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			folder, key := newRun(t)
			record(t, folder, key, entry(1, "one"), entry(2, "two"))
			appendRaw(t, folder, c.tail(t, folder, key))
			got, err := folder.ReadJournal(key, journal.Head{})
			if err != nil {
				t.Fatal(err)
			}
			if texts(got) != c.want {
				t.Fatalf("read %q, want %q", texts(got), c.want)
			}
			// Appending after the damage starts a line of its own.
			record(t, folder, key, entry(4, "four"))
			got, err = folder.ReadJournal(key, journal.Head{})
			if err != nil || texts(got) != c.want+",four" {
				t.Fatalf("after appending: %q, %v", texts(got), err)
			}
		})
	}
}

// A child with write access to the run folder changes journal.jsonl: every
// change that is not a torn last line is refused, never cut off or
// replayed.
func TestReadJournal_RefusesEveryLineItCannotAuthenticate(t *testing.T) {
	forged := `{"v":2,"seq":2,"order":2,"key":"{\"prompt\":\"p\"}","agentId":"ag_x","status":"completed","text":"FORGED BY CHILD 1","usage":{"inputTokens":0,"outputTokens":0,"costUSD":0},"mac":"` + strings.Repeat("0", 64) + `"}`
	cases := []struct {
		name   string
		change func(t *testing.T, lines []string, key journal.Key) string
	}{
		{"an appended line with a made-up MAC", func(t *testing.T, lines []string, _ journal.Key) string {
			return lines[0] + forged + "\n"
		}},
		{"an appended line without a MAC", func(t *testing.T, lines []string, _ journal.Key) string {
			return lines[0] + strings.Replace(forged, `,"mac":"`+strings.Repeat("0", 64)+`"`, "", 1) + "\n"
		}},
		{"a line in the version without MACs", func(t *testing.T, lines []string, _ journal.Key) string {
			return lines[0] + strings.Replace(strings.Replace(forged, `,"mac":"`+strings.Repeat("0", 64)+`"`, "", 1), `"v":2`, `"v":1`, 1) + "\n"
		}},
		{"an answer edited in place", func(t *testing.T, lines []string, _ journal.Key) string {
			return strings.Replace(lines[0], `"text":"one"`, `"text":"eno"`, 1) + lines[1] + lines[2]
		}},
		{"a line dropped from the middle", func(t *testing.T, lines []string, _ journal.Key) string {
			return lines[0] + lines[2]
		}},
		{"lines reordered", func(t *testing.T, lines []string, _ journal.Key) string {
			return lines[1] + lines[0] + lines[2]
		}},
		{"a genuine line repeated", func(t *testing.T, lines []string, _ journal.Key) string {
			return lines[0] + lines[1] + lines[2] + lines[1]
		}},
		{"a line of another run's journal", func(t *testing.T, lines []string, _ journal.Key) string {
			other, key := newRun(t)
			record(t, other, key, entry(1, "one"), entry(2, "FORGED"))
			return lines[0] + journalLines(t, other)[1]
		}},
		{"garbage on a line of its own at the end", func(t *testing.T, lines []string, _ journal.Key) string {
			return strings.Join(lines, "") + "not json\n"
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			folder, key := newRun(t)
			record(t, folder, key, entry(1, "one"), entry(2, "two"), entry(3, "three"))
			changed := c.change(t, journalLines(t, folder), key)
			must(t, os.WriteFile(folder.Path(journal.JournalFile), []byte(changed), 0o600))
			got, err := folder.ReadJournal(key, journal.Head{})
			if err == nil {
				t.Fatalf("read %q from a changed journal", texts(got))
			}
			if !errors.Is(err, journal.ErrForged) && !errors.Is(err, journal.ErrLegacy) {
				t.Fatalf("err = %v, want ErrForged or ErrLegacy", err)
			}
			if !strings.Contains(err.Error(), "line ") || !strings.Contains(err.Error(), "aside") {
				t.Fatalf("the refusal does not say where and what to do: %v", err)
			}
			if _, err := folder.OpenJournal(key, journal.Head{}, nil); err == nil {
				t.Fatal("OpenJournal appended to a changed journal")
			}
			if data, _ := os.ReadFile(folder.Path(journal.JournalFile)); string(data) != changed {
				t.Fatal("OpenJournal changed the file it refused")
			}
		})
	}
}

func TestReadJournal_RefusesANewerVersion(t *testing.T) {
	folder, key := newRun(t)
	must(t, os.WriteFile(folder.Path(journal.JournalFile), []byte(`{"v":3,"seq":1,"status":"completed"}`+"\n"), 0o600))
	if _, err := folder.ReadJournal(key, journal.Head{}); err == nil || !strings.Contains(err.Error(), "newer than this wfrun") {
		t.Fatalf("err = %v", err)
	}
}

func TestReadJournal_TheLastLineOfASeqWins(t *testing.T) {
	folder, key := newRun(t)
	failed := entry(2, "")
	failed.Status, failed.Error = agentapi.StatusFailed, "flaky"
	record(t, folder, key, entry(1, "one"), failed)
	record(t, folder, key, entry(2, "two again")) // a run continued in place chains on
	got, err := folder.ReadJournal(key, journal.Head{})
	if err != nil || texts(got) != "one,two again" {
		t.Fatalf("%q, %v", texts(got), err)
	}
}

func TestReadJournal_AMissingJournalIsEmpty(t *testing.T) {
	folder, key := newRun(t)
	got, err := folder.ReadJournal(key, journal.Head{})
	if err != nil || got != nil {
		t.Fatalf("%v, %v", got, err)
	}
}

// A journal.jsonl that is a link to a file outside is never read, cut or
// appended to.
func TestOpenJournal_RefusesALinkedJournal(t *testing.T) {
	folder, key := newRun(t)
	outside := filepath.Join(t.TempDir(), "notes.txt")
	must(t, os.WriteFile(outside, []byte("one line of the user's, no newline"), 0o600))
	must(t, os.Symlink(outside, folder.Path(journal.JournalFile)))
	if _, err := folder.OpenJournal(key, journal.Head{}, nil); !errors.Is(err, nofollow.ErrLink) || !strings.Contains(err.Error(), "never follows a symbolic link") {
		t.Fatalf("OpenJournal = %v, want ErrLink with a sentence", err)
	}
	if _, err := folder.ReadJournal(key, journal.Head{}); !errors.Is(err, nofollow.ErrLink) {
		t.Fatalf("ReadJournal = %v, want ErrLink", err)
	}
	if data, _ := os.ReadFile(outside); string(data) != "one line of the user's, no newline" {
		t.Fatalf("the outside file changed: %q", data)
	}
}

func TestFolder_RefusesLinksForEveryFile(t *testing.T) {
	folder, _ := newRun(t)
	outside := filepath.Join(t.TempDir(), "secret")
	must(t, os.WriteFile(outside, []byte("secret"), 0o600))
	for _, name := range []string{journal.RequestFile, journal.EventsFile, journal.LockFile} {
		must(t, os.Symlink(outside, folder.Path(name)))
	}
	if _, err := folder.ReadFile(journal.RequestFile); !errors.Is(err, nofollow.ErrLink) {
		t.Fatalf("ReadFile = %v", err)
	}
	if _, err := folder.OpenEvents(); !errors.Is(err, nofollow.ErrLink) {
		t.Fatalf("OpenEvents = %v", err)
	}
	if _, err := folder.Lock(); !errors.Is(err, nofollow.ErrLink) {
		t.Fatalf("Lock = %v", err)
	}
	if free, known := folder.LockFree(); known {
		t.Fatalf("LockFree of a linked lock file = %v, known", free)
	}
	// Writing whole replaces the link itself, never its target.
	must(t, folder.WriteFile(journal.RequestFile, []byte("{}")))
	if fi, _ := os.Lstat(folder.Path(journal.RequestFile)); !fi.Mode().IsRegular() {
		t.Fatal("request.json is still a link")
	}
	if data, _ := os.ReadFile(outside); string(data) != "secret" {
		t.Fatalf("the outside file changed: %q", data)
	}
	// A run folder that is itself a link is refused.
	runs := t.TempDir()
	must(t, os.Symlink(filepath.Dir(outside), filepath.Join(runs, runID)))
	if _, err := journal.OpenFolder(runs, runID); !errors.Is(err, nofollow.ErrLink) {
		t.Fatalf("OpenFolder of a link = %v", err)
	}
	if _, err := journal.Create(runs, runID); !errors.Is(err, nofollow.ErrLink) {
		t.Fatalf("Create over a link = %v", err)
	}
}

func TestSeal_RefusesAChangedOrUnsealedFile(t *testing.T) {
	folder, key := newRun(t)
	must(t, folder.WriteFile(journal.RequestFile, []byte(`{"script":"return 1"}`)))
	if _, err := folder.ReadSealed(key, journal.RequestFile); !errors.Is(err, journal.ErrForged) {
		t.Fatalf("an unsealed file: %v", err)
	}
	must(t, folder.Seal(key, journal.RequestFile))
	if data, err := folder.ReadSealed(key, journal.RequestFile); err != nil || string(data) != `{"script":"return 1"}` {
		t.Fatalf("ReadSealed = %q, %v", data, err)
	}
	must(t, os.WriteFile(folder.Path(journal.RequestFile), []byte(`{"script":"return 2"}`), 0o600))
	if _, err := folder.ReadSealed(key, journal.RequestFile); !errors.Is(err, journal.ErrForged) || !strings.Contains(err.Error(), "changed after wfrun wrote it") {
		t.Fatalf("a changed file: %v", err)
	}
	_, other := newRun(t)
	must(t, os.WriteFile(folder.Path(journal.RequestFile), []byte(`{"script":"return 1"}`), 0o600))
	if _, err := folder.ReadSealed(other, journal.RequestFile); !errors.Is(err, journal.ErrForged) {
		t.Fatalf("another run's key: %v", err)
	}
}

func TestKeys(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	if _, err := journal.LoadKey(state, runID); !errors.Is(err, journal.ErrNoKey) {
		t.Fatalf("LoadKey of a run without a key = %v", err)
	}
	k, err := journal.NewKey(state, runID)
	if err != nil {
		t.Fatal(err)
	}
	again, err := journal.LoadKey(state, runID)
	if err != nil || !bytes.Equal(k, again) {
		t.Fatalf("LoadKey = %x, %v; want %x", again, err, k)
	}
	if _, err := journal.NewKey(state, runID); err == nil {
		t.Fatal("a second key was made for one run")
	}
	fi, err := os.Stat(filepath.Join(state, journal.KeysDir, runID))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the key file: %v, %v", fi, err)
	}
	if _, err := journal.NewKey(state, "../x"); err == nil {
		t.Fatal("a path as run id was accepted")
	}
}

func TestLock_IsHeldUntilReleased(t *testing.T) {
	folder, _ := newRun(t)
	if free, known := folder.LockFree(); !free || !known {
		t.Fatalf("a folder without a lock file: free %v, known %v", free, known)
	}
	l, err := folder.Lock()
	if err != nil {
		t.Fatal(err)
	}
	if free, known := folder.LockFree(); free || !known {
		t.Fatalf("a held lock: free %v, known %v", free, known)
	}
	if _, err := folder.Lock(); !errors.Is(err, journal.ErrLocked) {
		t.Fatalf("a second Lock = %v, want ErrLocked", err)
	}
	must(t, l.Release())
	must(t, l.Release())
	if free, known := folder.LockFree(); !free || !known {
		t.Fatalf("a released lock: free %v, known %v", free, known)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestFolder(t *testing.T) {
	runs := t.TempDir()
	if _, err := journal.Create(runs, "../etc"); err == nil {
		t.Fatal("a path as run id was accepted")
	}
	if _, err := journal.OpenFolder(runs, runID); err == nil || !strings.Contains(err.Error(), "has no folder") {
		t.Fatalf("err = %v", err)
	}
	f, err := journal.Create(runs, runID)
	if err != nil {
		t.Fatal(err)
	}
	must(t, f.WriteJSON(journal.ResultFile, map[string]int{"a": 1}))
	must(t, f.WriteJSON(journal.ResultFile, map[string]int{"a": 2}))
	again, err := journal.OpenFolder(runs, runID)
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
	log.Write(runtime.Event{Type: runtime.EventLog, RunID: runID, Message: "hi"})
	log.Close()
	data, _ = f.ReadFile(journal.EventsFile)
	if !strings.Contains(string(data), `"message":"hi"`) {
		t.Fatalf("events: %s", data)
	}
}

func FuzzReadJournal(f *testing.F) {
	f.Add([]byte(`{"v":2,"seq":1,"order":1,"key":"k","agentId":"a","status":"completed","text":"t","mac":"` + strings.Repeat("a", 64) + `"}` + "\n"))
	f.Add([]byte("{\"v\":2,\"seq\":1\n{\"v\""))
	f.Add([]byte("\n\n\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		folder, key := newRun(t)
		record(t, folder, key, entry(1, "one"))
		good, _ := os.ReadFile(folder.Path(journal.JournalFile))
		must(t, os.WriteFile(folder.Path(journal.JournalFile), append(good, data...), 0o600))
		entries, err := folder.ReadJournal(key, journal.Head{})
		if err != nil {
			return
		}
		// Whatever is accepted is what wfrun wrote, and OpenJournal
		// appends to it cleanly.
		if len(entries) != 1 || entries[0].Text != "one" {
			t.Fatalf("accepted %q from bytes no key wrote", texts(entries))
		}
		j, err := folder.OpenJournal(key, journal.Head{}, entries)
		if err != nil {
			t.Fatalf("ReadJournal accepted what OpenJournal refused: %v", err)
		}
		if err := j.Record(entry(1_000_000, "new")); err != nil {
			t.Fatal(err)
		}
		j.Close()
		after, err := folder.ReadJournal(key, journal.Head{})
		if err != nil || texts(after) != "one,new" {
			t.Fatalf("after appending: %q, %v", texts(after), err)
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

// A FIFO planted in place of a file would block a plain open until a
// writer came; every file of the folder is refused at once instead.
func TestFolder_RefusesAFIFOWithoutBlocking(t *testing.T) {
	folder, key := newRun(t)
	for _, name := range []string{journal.RequestFile, journal.JournalFile, journal.EventsFile, journal.LockFile} {
		must(t, syscall.Mkfifo(folder.Path(name), 0o600))
	}
	if _, err := folder.ReadFile(journal.RequestFile); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("ReadFile of a FIFO = %v", err)
	}
	if _, err := folder.ReadJournal(key, journal.Head{}); err == nil {
		t.Fatal("ReadJournal read a FIFO")
	}
	if _, err := folder.OpenJournal(key, journal.Head{}, nil); err == nil {
		t.Fatal("OpenJournal opened a FIFO")
	}
	if _, err := folder.OpenEvents(); err == nil {
		t.Fatal("OpenEvents opened a FIFO")
	}
	if _, known := folder.LockFree(); known {
		t.Fatal("LockFree of a FIFO is known")
	}
}

// The chain guards the middle of the journal; the head, saved where no
// child can write, guards its end.
func TestReadJournal_RefusesAJournalCutShorterThanItsHead(t *testing.T) {
	folder, key := newRun(t)
	state := t.TempDir()
	j, err := folder.OpenJournal(key, journal.Head{}, nil)
	must(t, err)
	for i := 1; i <= 3; i++ {
		must(t, j.Record(entry(i, fmt.Sprint(i))))
	}
	head := j.Head()
	must(t, j.Close())
	must(t, journal.SaveHead(state, runID, head))
	at, err := journal.LoadHead(state, runID)
	if err != nil || at != head || at.Lines != 3 {
		t.Fatalf("LoadHead = %+v, %v; saved %+v", at, err, head)
	}
	if h, err := journal.LoadHead(state, "wf_00000000000000ff"); err != nil || h != (journal.Head{}) {
		t.Fatalf("LoadHead of a run without a head = %+v, %v", h, err)
	}
	if got, err := folder.ReadJournal(key, at); err != nil || texts(got) != "1,2,3" {
		t.Fatalf("the whole journal: %q, %v", texts(got), err)
	}
	lines := journalLines(t, folder)
	must(t, os.WriteFile(folder.Path(journal.JournalFile), []byte(lines[0]+lines[1]), 0o600))
	if _, err := folder.ReadJournal(key, at); !errors.Is(err, journal.ErrForged) || !strings.Contains(err.Error(), "removed from its end") {
		t.Fatalf("a cut journal: %v", err)
	}
	if _, err := folder.OpenJournal(key, at, nil); err == nil {
		t.Fatal("OpenJournal appended to a cut journal")
	}
	// Lines after the head (a continued attempt that crashed) may be cut.
	must(t, os.WriteFile(folder.Path(journal.JournalFile), []byte(strings.Join(lines, "")), 0o600))
	record(t, folder, key, entry(4, "4"))
	must(t, os.WriteFile(folder.Path(journal.JournalFile), []byte(strings.Join(lines, "")), 0o600))
	if got, err := folder.ReadJournal(key, at); err != nil || texts(got) != "1,2,3" {
		t.Fatalf("cut after the head: %q, %v", texts(got), err)
	}
}

func TestReadJournal_AnEmptiedJournalIsEmptyWhateverItsHead(t *testing.T) {
	folder, key := newRun(t)
	record(t, folder, key, entry(1, "one"))
	at := journal.Head{Lines: 1, MAC: strings.Repeat("0", 64)}
	for _, empty := range []func() error{
		func() error { return os.WriteFile(folder.Path(journal.JournalFile), nil, 0o600) },
		func() error { return os.Remove(folder.Path(journal.JournalFile)) },
	} {
		must(t, empty())
		if got, err := folder.ReadJournal(key, at); err != nil || len(got) != 0 {
			t.Fatalf("an emptied journal: %v, %v", got, err)
		}
	}
}
