package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/wfrun/wfrun/runtime"
)

// Version is the version of the journal's line format, its field "v".
const Version = 1

// line is one line of journal.jsonl.
type line struct {
	V int `json:"v"`
	runtime.JournalEntry
}

// Read returns the entries of the journal at path, the last line of each
// seq winning, in the order of the file. A missing file is an empty
// journal. A truncated or corrupt last line is dropped (a crash in the
// middle of a write leaves one); a corrupt line before the last is an
// error naming its line number.
func Read(path string) ([]runtime.JournalEntry, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the journal: %w", err)
	}
	entries, _, err := parse(path, data)
	return entries, err
}

// parse reads the lines of data; good is the length of the prefix of data
// that holds whole, valid lines (what File keeps when it appends).
func parse(path string, data []byte) (entries []runtime.JournalEntry, good int, err error) {
	bySeq := map[int]int{} // seq → index in entries
	for n, rest := 1, data; len(rest) > 0; n++ {
		text, after, complete := bytes.Cut(rest, []byte("\n"))
		rest = after
		last := len(bytes.TrimSpace(rest)) == 0
		if len(bytes.TrimSpace(text)) == 0 {
			if complete {
				good = len(data) - len(rest)
			}
			continue
		}
		var l line
		perr := json.Unmarshal(text, &l)
		if perr == nil && (l.V != Version || l.Seq < 1 || !l.Status.Valid()) {
			perr = fmt.Errorf("version %d, seq %d, status %q", l.V, l.Seq, l.Status)
			if l.V > Version {
				return nil, 0, fmt.Errorf("%s line %d is of journal version %d, newer than this wfrun's %d; resume the run with the wfrun that wrote it", path, n, l.V, Version)
			}
		}
		if perr != nil {
			if last {
				break // what a crash in the middle of a write leaves: that child runs again
			}
			return nil, 0, fmt.Errorf("%s line %d is not a journal entry (%v); a crash only damages the last line, so the file was changed by hand: restore it, or remove it to run every child again", path, n, perr)
		}
		if i, ok := bySeq[l.Seq]; ok {
			entries[i] = l.JournalEntry
		} else {
			bySeq[l.Seq] = len(entries)
			entries = append(entries, l.JournalEntry)
		}
		if complete {
			good = len(data) - len(rest)
		} else {
			good = len(data) // a whole entry whose newline was lost: File adds it
		}
	}
	return entries, good, nil
}

// File is an open journal that a run appends to: the runtime.Journal of
// one attempt. It is safe for concurrent use.
type File struct {
	prior []runtime.JournalEntry

	mu     sync.Mutex
	f      *os.File
	buf    bytes.Buffer
	budget *Budget
}

// SetBudget makes every later Record take its line from b, and fail,
// writing nothing, when b refuses it.
func (j *File) SetBudget(b *Budget) {
	j.mu.Lock()
	j.budget = b
	j.mu.Unlock()
}

// Open opens (or creates) the journal at path for appending, first cutting
// off a damaged last line (and adding a newline a whole last line lacks),
// so that new lines start on a line of their own. prior is what the
// attempt replays (Prior): the entries of the run it resumes, or of this
// same file when the run continues in place.
func Open(path string, prior []runtime.JournalEntry) (*File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot open the journal: %w", err)
	}
	fail := func(err error) (*File, error) {
		f.Close()
		return nil, fmt.Errorf("cannot open the journal %s: %w", path, err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return fail(err)
	}
	_, good, err := parse(path, data)
	if err != nil {
		return nil, errors.Join(err, f.Close())
	}
	if good < len(data) {
		if err := f.Truncate(int64(good)); err != nil {
			return fail(err)
		}
	}
	if _, err := f.Seek(int64(good), io.SeekStart); err != nil {
		return fail(err)
	}
	if good > 0 && data[good-1] != '\n' {
		if _, err := f.Write([]byte("\n")); err != nil {
			return fail(err)
		}
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	syncDir(filepath.Dir(path))
	return &File{prior: prior, f: f}, nil
}

// Prior returns the entries the attempt replays.
func (j *File) Prior() []runtime.JournalEntry { return j.prior }

// Record appends e as one line and fsyncs the file: when it returns nil,
// the entry survives a crash. A line the budget (SetBudget) refuses is
// not written, and the error wraps ErrFolderFull.
func (j *File) Record(e runtime.JournalEntry) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return errors.New("the journal is closed")
	}
	j.buf.Reset()
	enc := json.NewEncoder(&j.buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(line{V: Version, JournalEntry: e}); err != nil {
		return fmt.Errorf("cannot encode agent %d for the journal: %w", e.Seq, err)
	}
	if err := j.budget.take(j.buf.Len(), JournalFile); err != nil {
		return err
	}
	if _, err := j.f.Write(j.buf.Bytes()); err != nil {
		return err
	}
	return j.f.Sync()
}

// Close closes the file. Record fails after it.
func (j *File) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}

// syncDir makes a new file's name durable. Best effort: a folder that
// cannot be opened for syncing still holds the file.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
