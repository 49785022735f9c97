package journal

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/wfrun/wfrun/internal/human"
)

// ErrFolderFull is wrapped by the error of a write that a run folder's
// Budget refused.
var ErrFolderFull = errors.New("the run folder's size budget is spent")

// FolderFullError is the error of the write that spent a Budget: a line
// of Line bytes for File, when Used of Limit bytes were taken.
type FolderFullError struct {
	File        string
	Line        int64
	Used, Limit int64
}

func (e *FolderFullError) Error() string {
	return fmt.Sprintf("%v: %s", ErrFolderFull, e.Detail())
}

// Detail says which line did not fit.
func (e *FolderFullError) Detail() string {
	return fmt.Sprintf("a line of %s for %s would have brought %s and %s to %s",
		size(e.Line), e.File, EventsFile, JournalFile, size(e.Used+e.Line))
}

// size says n exactly enough to compare with a budget: tenths of MiB
// above one MiB (human.Bytes rounds those up), else as human.Bytes does.
func size(n int64) string {
	if n >= 1<<20 && n < 1<<30 {
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return human.Bytes(n)
}

// Is makes the error ErrFolderFull for errors.Is.
func (e *FolderFullError) Is(target error) bool { return target == ErrFolderFull }

// Budget bounds the bytes a run folder's appended files — the event log
// and the journal — may hold together. A writer takes a line's bytes from
// it before writing the line, and a line it refuses is not written, so
// what is on disk stays whole lines that a resume reads. Once a write has
// been refused the budget is spent and refuses every later one: the run is
// ending. It is safe for concurrent use; a nil *Budget refuses nothing.
type Budget struct {
	limit int64

	mu    sync.Mutex
	used  int64
	spent error // the first refusal
}

// NewBudget returns a budget of limit bytes of which used are already
// taken (the files of a run continued in its own folder).
func NewBudget(limit, used int64) *Budget { return &Budget{limit: limit, used: used} }

// Limit returns the budget's size in bytes.
func (b *Budget) Limit() int64 { return b.limit }

// Used returns the bytes taken so far.
func (b *Budget) Used() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Spent returns the error of the first refused write, or nil.
func (b *Budget) Spent() error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

// take takes n bytes for a line of what (a file's name), or refuses them.
func (b *Budget) take(n int, what string) error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.spent != nil {
		return b.spent
	}
	if b.used+int64(n) > b.limit {
		b.spent = &FolderFullError{File: what, Line: int64(n), Used: b.used, Limit: b.limit}
		return b.spent
	}
	b.used += int64(n)
	return nil
}

// force counts n bytes that are written whatever the budget says.
func (b *Budget) force(n int) {
	if b == nil {
		return
	}
	b.mu.Lock()
	b.used += int64(n)
	b.mu.Unlock()
}

// Appended returns the bytes the folder's event log and journal hold: what
// a run continued in its own folder has already taken of its budget.
func (f *Folder) Appended() int64 {
	var n int64
	for _, name := range []string{EventsFile, JournalFile} {
		if fi, err := os.Stat(f.Path(name)); err == nil {
			n += fi.Size()
		}
	}
	return n
}
