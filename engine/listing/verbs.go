package listing

import (
	"context"
	"fmt"
	"time"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/ledger"
	"github.com/wfrun/wfrun/internal/human"
)

// The ledger commands (wfrun runs, show, stop, note) open an engine that
// runs nothing over the runs folder, and apply the verbs through it.

// OpenLedger returns an engine over the run ledger of runsDir that runs
// nothing, for the listings and the verbs; stateDir is where wfrun keeps
// what no child may read (statedir.Dir). The caller closes it.
func OpenLedger(runsDir, stateDir string) (*engine.Engine, error) {
	eng, err := engine.New(engine.Config{RunsDir: runsDir, StateDir: stateDir})
	if err != nil {
		return nil, fmt.Errorf("cannot open the run ledger of %s: %w", runsDir, err)
	}
	return eng, nil
}

// Rebuilt is the sentence that says eng found its ledger missing or empty
// and rebuilt it from the run folders (the rows' timelines and the
// continuable sub-agents it held are gone); "" when it did not.
func Rebuilt(eng *engine.Engine) string {
	n := eng.Rebuilt()
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("the ledger %s was missing or empty and was rebuilt from %d run %s; the runs' timelines before now are lost",
		eng.Ledger().Path(), n, human.Noun(n, "folder", "folders"))
}

// RunList is the JSON of wfrun runs: the runs, newest first.
type RunList struct {
	Runs []ledger.Run `json:"runs"`
}

// ParseStatus is the run status of s, "" for none; its error names the
// statuses.
func ParseStatus(s string) (ledger.RunStatus, error) {
	status := ledger.RunStatus(s)
	if s != "" && !status.Valid() {
		return "", fmt.Errorf("--status %q is not a run status; use one of %s", s, Statuses())
	}
	return status, nil
}

// stopPoll is how often StopAndWait looks whether the run has stopped.
const stopPoll = 100 * time.Millisecond

// DefaultStopReason is the reason StopAndWait records when given none.
const DefaultStopReason = "stopped with wfrun stop"

// StopAndWait applies the stop verb to the run id (reason "" is
// DefaultStopReason) and waits until it is no longer running: a run of
// another process is cancelled by that process at its next heartbeat, so
// the wait lasts at most a lease and a second. It returns the run's row;
// stopped is false when the run was still running at the end of the wait
// (the stop is recorded, and its process carries it out).
func StopAndWait(eng *engine.Engine, id, reason string) (r ledger.Run, stopped bool, err error) {
	if reason == "" {
		reason = DefaultStopReason
	}
	if _, err := eng.Stop(id, reason); err != nil {
		return ledger.Run{}, false, err
	}
	l := eng.Ledger()
	deadline := time.Now().Add(l.Lease() + time.Second)
	for {
		_, _ = eng.SweepRuns()
		r, err := l.Get(context.Background(), id)
		if err != nil {
			return ledger.Run{}, false, err
		}
		if r.Status != ledger.RunRunning {
			return r, true, nil
		}
		if time.Now().After(deadline) {
			return r, false, nil
		}
		time.Sleep(stopPoll)
	}
}

// Noted is the JSON of wfrun note: the run and its timeline with the note.
type Noted struct {
	RunID    string         `json:"runId"`
	Timeline []ledger.Event `json:"timeline"`
}

// Note applies the follow_up verb: text goes on the run's timeline, its
// status stays. It returns the timeline with the note.
func Note(eng *engine.Engine, id, text string) (Noted, error) {
	if err := eng.Note(id, text); err != nil {
		return Noted{}, err
	}
	tl, _ := eng.Ledger().Timeline(context.Background(), id)
	return Noted{RunID: id, Timeline: tl}, nil
}
