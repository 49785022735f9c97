package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/wfrun/wfrun/internal/nofollow"
	"github.com/wfrun/wfrun/runtime"
)

// The files of a run folder.
const (
	RequestFile    = "request.json"  // the WorkflowStartRequest, script included
	ScriptFile     = "script.js"     // the script alone, to read or diff
	EventsFile     = "events.jsonl"  // every event, one JSON line each; each attempt appends
	JournalFile    = "journal.jsonl" // one line per finished child, each with its MAC
	ResultFile     = "result.json"   // the WorkflowResult, once settled
	SealFile       = "seal.json"     // the MACs of request.json and script.js
	LockFile       = "lock"          // flocked by the live process for the run's whole life
	TranscriptsDir = "transcripts"   // the children's conversations, where the provider writes them
)

var runIDPattern = regexp.MustCompile(`^wf_[0-9a-f]{16}$`)

// ValidRunID reports whether id has the form of a run id ("wf_" and 16
// hex digits), the only names a run folder may have.
func ValidRunID(id string) bool { return runIDPattern.MatchString(id) }

// ErrNoFolder is returned (wrapped) by OpenFolder for a run that has no
// folder.
var ErrNoFolder = errors.New("no such run folder")

// Folder is one run's folder. Every file in it is opened without
// following a symbolic link (internal/nofollow): the folder is beneath the
// trusted runs folder, and a link a child planted in it is refused.
type Folder struct {
	base string // trusted: the runs folder the user named, or At's folder
	sub  string // the run id; "" for At's folder
}

// Create makes the folder of runID under runsDir (and runsDir itself if
// needed). The folder is private to the user: it holds prompts and answers.
func Create(runsDir, runID string) (*Folder, error) {
	if !ValidRunID(runID) {
		return nil, fmt.Errorf("%q is not a run id (wf_ and 16 hex digits)", runID)
	}
	if err := os.MkdirAll(runsDir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the runs folder: %w", err)
	}
	if err := nofollow.MkdirAll(runsDir, runID, 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the run folder: %w", linkSentence(err))
	}
	return &Folder{base: runsDir, sub: runID}, nil
}

// At returns the folder dir, creating it (private to the user) if needed:
// a folder written the same way as a run's, for what is not a run (a
// continuable sub-agent's). The caller decides that dir is a safe place.
func At(dir string) (*Folder, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the folder %s: %w", dir, err)
	}
	return &Folder{base: dir}, nil
}

// OpenFolder returns the existing folder of runID under runsDir. A run
// without a folder is an error wrapping ErrNoFolder; a folder that is a
// symbolic link is refused (nofollow.ErrLink).
func OpenFolder(runsDir, runID string) (*Folder, error) {
	if !ValidRunID(runID) {
		return nil, fmt.Errorf("%q is not a run id: a run id is wf_ and 16 hex digits, as wfrun runs lists them", runID)
	}
	d, err := nofollow.OpenDir(runsDir, runID)
	if errors.Is(err, nofollow.ErrLink) {
		return nil, fmt.Errorf("run %s: %w", runID, linkSentence(err))
	}
	if err != nil {
		return nil, fmt.Errorf("run %s has no folder in %s (%w); wfrun runs lists the runs there", runID, runsDir, ErrNoFolder)
	}
	d.Close()
	return &Folder{base: runsDir, sub: runID}, nil
}

// linkSentence says what to do about a link in a run folder's way.
func linkSentence(err error) error {
	if errors.Is(err, nofollow.ErrLink) {
		return fmt.Errorf("%w; wfrun never follows a symbolic link in a run folder (a child may have planted it): remove the link and restore the file from a backup, or start the run again", err)
	}
	return err
}

// Dir is the folder's path.
func (f *Folder) Dir() string { return filepath.Join(f.base, f.sub) }

// Path is the path of one of the folder's files.
func (f *Folder) Path(name string) string { return filepath.Join(f.base, f.sub, name) }

// rel is name relative to the trusted base.
func (f *Folder) rel(name string) string {
	if f.sub == "" {
		return name
	}
	return path.Join(f.sub, name)
}

// open opens one of the folder's files without following a link, and
// refuses anything but a regular file. O_NONBLOCK keeps a FIFO a child
// planted from blocking the open; on a regular file it changes nothing.
func (f *Folder) open(name string, flag int, perm os.FileMode) (*os.File, error) {
	file, err := nofollow.OpenFile(f.base, f.rel(name), flag|syscall.O_NONBLOCK, perm)
	if err != nil {
		return nil, linkSentence(err)
	}
	fi, err := file.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file (%v); wfrun reads and writes only regular files in a run folder (a child may have planted it): remove it", f.Path(name), fi.Mode().Type())
	}
	if err != nil {
		file.Close()
		return nil, err
	}
	return file, nil
}

// WriteFile writes name whole and atomically: readers see the old content
// or the new, never a part. Neither the temporary file nor the folder is
// reached through a link.
func (f *Folder) WriteFile(name string, data []byte) error {
	if err := f.writeAtomic(name, data); err != nil {
		return fmt.Errorf("cannot write %s: %w", f.Path(name), err)
	}
	return nil
}

func (f *Folder) writeAtomic(name string, data []byte) error {
	dirRel := "."
	if f.sub != "" {
		dirRel = f.sub
	}
	dir, err := nofollow.OpenDir(f.base, dirRel)
	if err != nil {
		return linkSentence(err)
	}
	defer dir.Close()
	var rnd [6]byte
	if _, err := randRead(rnd[:]); err != nil {
		return err
	}
	tmp := fmt.Sprintf(".%s.%x", name, rnd)
	fd, err := unix.Openat(int(dir.Fd()), tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return &fs.PathError{Op: "create", Path: f.Path(tmp), Err: err}
	}
	file := os.NewFile(uintptr(fd), f.Path(tmp))
	_, err = file.Write(data)
	if err == nil {
		err = file.Sync()
	}
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// renameat replaces whatever name is (a planted link included)
		// and never follows it.
		err = unix.Renameat(int(dir.Fd()), tmp, int(dir.Fd()), name)
	}
	if err != nil {
		_ = unix.Unlinkat(int(dir.Fd()), tmp, 0)
		return err
	}
	_ = dir.Sync()
	return nil
}

// syncDir makes the names in the folder durable. Best effort: a folder
// that cannot be opened for syncing still holds its files.
func (f *Folder) syncDir() {
	rel := "."
	if f.sub != "" {
		rel = f.sub
	}
	if d, err := nofollow.OpenDir(f.base, rel); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// WriteAtomic writes data to path whole: to a temporary file beside it,
// synced, then renamed over path, so that a reader (or a crash) sees the
// old content or the new, never a part. The temporary file is removed when
// anything fails. It is for paths no child can reach; a run folder's files
// go through Folder.WriteFile, which follows no link.
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

// ReadFile reads one of the folder's files, refusing a link or anything
// but a regular file.
func (f *Folder) ReadFile(name string) ([]byte, error) {
	file, err := f.open(name, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("the run folder %s has no %s: %w", f.Dir(), name, err)
	}
	if err != nil {
		return nil, err
	}
	defer file.Close()
	return io.ReadAll(file)
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
	file, err := f.open(EventsFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
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
