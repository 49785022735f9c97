package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"

	"github.com/wfrun/wfrun/internal/nofollow"
	"github.com/wfrun/wfrun/internal/statedir"
)

// The MACs chain each line to the one before, so a line cannot be dropped
// from the middle; the head guards the end. When a run settles, the
// number of lines of its journal and the MAC of the last are saved beside
// its key, where no child can write, and reading the journal again
// requires at least those lines, the same up to there. A run that crashed
// has the head of its last settled attempt (or none), so only the lines
// written after that can be cut without notice — and a cut line's agent
// only runs again.

// Head is how far a journal had got: its number of lines and the hex MAC
// of the last. The zero Head asks for nothing.
type Head struct {
	Lines int    `json:"lines"`
	MAC   string `json:"mac"`
}

// headName is the head's file in the keys folder.
func headName(runID string) string { return KeysDir + "/" + runID + ".head" }

// SaveHead saves h as runID's head in stateDir, whole and synced.
func SaveHead(stateDir, runID string, h Head) error {
	if !ValidRunID(runID) {
		return fmt.Errorf("%q is not a run id (wf_ and 16 hex digits)", runID)
	}
	if err := statedir.Make(stateDir, KeysDir); err != nil {
		return err
	}
	data, err := json.Marshal(h)
	if err != nil {
		return err
	}
	dir, err := nofollow.OpenDir(stateDir, KeysDir)
	if err != nil {
		return err
	}
	defer dir.Close()
	tmp := "." + runID + ".head.tmp"
	fd, err := unix.Openat(int(dir.Fd()), tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("cannot save the journal's head of run %s: %w", runID, err)
	}
	file := os.NewFile(uintptr(fd), tmp)
	_, err = file.Write(data)
	if err == nil {
		err = file.Sync()
	}
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat(int(dir.Fd()), tmp, int(dir.Fd()), runID+".head")
	}
	if err != nil {
		_ = unix.Unlinkat(int(dir.Fd()), tmp, 0)
		return fmt.Errorf("cannot save the journal's head of run %s: %w", runID, err)
	}
	_ = dir.Sync()
	return nil
}

// LoadHead returns runID's head from stateDir: the zero Head when it has
// none (it never settled, or settled before heads were kept).
func LoadHead(stateDir, runID string) (Head, error) {
	if !ValidRunID(runID) {
		return Head{}, fmt.Errorf("%q is not a run id (wf_ and 16 hex digits)", runID)
	}
	data, err := nofollow.ReadFile(stateDir, headName(runID))
	if errors.Is(err, fs.ErrNotExist) {
		return Head{}, nil
	}
	if err != nil {
		return Head{}, fmt.Errorf("cannot read the journal's head of run %s: %w", runID, err)
	}
	var h Head
	if err := json.Unmarshal(data, &h); err != nil || h.Lines < 0 {
		return Head{}, fmt.Errorf("the journal's head of run %s in %s is damaged; remove it to read the journal without it", runID, stateDir)
	}
	return h, nil
}
