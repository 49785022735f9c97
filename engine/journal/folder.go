package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sync"

	"github.com/wfrun/wfrun/runtime"
)

// The files of a run folder.
const (
	RequestFile    = "request.json"  // the WorkflowStartRequest, script included
	ScriptFile     = "script.js"     // the script alone, to read or diff
	EventsFile     = "events.jsonl"  // every event, one JSON line each; each attempt appends
	JournalFile    = "journal.jsonl" // one line per finished child
	ResultFile     = "result.json"   // the WorkflowResult, once settled
	TranscriptsDir = "transcripts"   // the children's conversations, where the provider writes them
)

var runIDPattern = regexp.MustCompile(`^wf_[0-9a-f]{16}$`)

// ValidRunID reports whether id has the form of a run id ("wf_" and 16
// hex digits), the only names a run folder may have.
func ValidRunID(id string) bool { return runIDPattern.MatchString(id) }

// ErrNoFolder is returned (wrapped) by OpenFolder for a run that has no
// folder.
var ErrNoFolder = errors.New("no such run folder")

// Folder is one run's folder.
type Folder struct {
	dir string
}

// Create makes the folder of runID under runsDir (and runsDir itself if
// needed). The folder is private to the user: it holds prompts and answers.
func Create(runsDir, runID string) (*Folder, error) {
	if !ValidRunID(runID) {
		return nil, fmt.Errorf("%q is not a run id (wf_ and 16 hex digits)", runID)
	}
	dir := filepath.Join(runsDir, runID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the run folder: %w", err)
	}
	return &Folder{dir: dir}, nil
}

// At returns the folder dir, creating it (private to the user) if needed:
// a folder written the same way as a run's, for what is not a run (a
// continuable sub-agent's). The caller decides that dir is a safe place.
func At(dir string) (*Folder, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the folder %s: %w", dir, err)
	}
	return &Folder{dir: dir}, nil
}

// OpenFolder returns the existing folder of runID under runsDir. A run
// without a folder is an error wrapping ErrNoFolder.
func OpenFolder(runsDir, runID string) (*Folder, error) {
	if !ValidRunID(runID) {
		return nil, fmt.Errorf("%q is not a run id: a run id is wf_ and 16 hex digits, as wfrun runs lists them", runID)
	}
	dir := filepath.Join(runsDir, runID)
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return nil, fmt.Errorf("run %s has no folder in %s (%w); wfrun runs lists the runs there", runID, runsDir, ErrNoFolder)
	}
	return &Folder{dir: dir}, nil
}

// Dir is the folder's path.
func (f *Folder) Dir() string { return f.dir }

// Path is the path of one of the folder's files.
func (f *Folder) Path(name string) string { return filepath.Join(f.dir, name) }

// WriteFile writes name whole and atomically: readers see the old content
// or the new, never a part.
func (f *Folder) WriteFile(name string, data []byte) error {
	if err := WriteAtomic(f.Path(name), data); err != nil {
		return fmt.Errorf("cannot write %s: %w", f.Path(name), err)
	}
	return nil
}

// WriteAtomic writes data to path whole: to a temporary file beside it,
// synced, then renamed over path, so that a reader (or a crash) sees the
// old content or the new, never a part. The temporary file is removed when
// anything fails.
func WriteAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
	return err
}

// WriteJSON writes v, indented, as name (see WriteFile).
func (f *Folder) WriteJSON(name string, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // scripts are full of =>, < and &
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("cannot encode %s: %w", name, err)
	}
	return f.WriteFile(name, buf.Bytes())
}

// ReadFile reads one of the folder's files.
func (f *Folder) ReadFile(name string) ([]byte, error) {
	data, err := os.ReadFile(f.Path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("the run folder %s has no %s: %w", f.dir, name, err)
	}
	return data, err
}

// EventLog appends events to a run's events.jsonl. Lines are not fsynced:
// the journal, not the event log, is what resume relies on. It is safe for
// concurrent use; the first write error is kept (Err) and later events
// are dropped — all but run.end once a budget was spent (SetBudget).
type EventLog struct {
	mu     sync.Mutex
	f      *os.File
	err    error
	budget *Budget
}

// SetBudget makes every later event take its line from b. The first
// event b refuses is the log's error, and no later one is written, except
// the run's run.end: it carries no value, and it says how the run ended.
func (l *EventLog) SetBudget(b *Budget) {
	l.mu.Lock()
	l.budget = b
	l.mu.Unlock()
}

// OpenEvents opens the folder's events.jsonl for appending.
func (f *Folder) OpenEvents() (*EventLog, error) {
	file, err := os.OpenFile(f.Path(EventsFile), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot open the event log: %w", err)
	}
	return &EventLog{f: file}, nil
}

// Write appends ev as one line.
func (l *EventLog) Write(ev runtime.Event) {
	data, err := json.Marshal(ev)
	l.mu.Lock()
	defer l.mu.Unlock()
	last := ev.Type == runtime.EventRunEnd && errors.Is(l.err, ErrFolderFull)
	if (l.err != nil && !last) || l.f == nil {
		return
	}
	if err == nil {
		data = append(data, '\n')
		if ev.Type == runtime.EventRunEnd {
			l.budget.force(len(data))
		} else {
			err = l.budget.take(len(data), EventsFile)
		}
	}
	if err == nil {
		_, err = l.f.Write(data)
	}
	if l.err == nil {
		l.err = err
	}
}

// Err returns the first error writing the log.
func (l *EventLog) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// Close closes the log.
func (l *EventLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
