package engine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"time"

	"github.com/wfrun/wfrun/engine/journal"
	"github.com/wfrun/wfrun/engine/ledger"
	"github.com/wfrun/wfrun/internal/statedir"
)

// openDurable finds the state folder, opens the ledger — rebuilding it
// from the run folders when it was missing or empty — and marks abandoned
// the runs whose process is gone (New).
func (e *Engine) openDurable() error {
	e.stateDir = e.cfg.StateDir
	if e.stateDir == "" {
		d, err := statedir.Dir(nil)
		if err != nil {
			return err
		}
		e.stateDir = d
	}
	l, err := openLedger(e.cfg)
	if err != nil {
		return err
	}
	e.ledger = l
	if l.Fresh() {
		n, err := e.rebuildLedger()
		if err != nil {
			l.Close()
			return fmt.Errorf("the ledger %s was missing or empty and cannot be rebuilt from the run folders in %s: %w", l.Path(), e.cfg.RunsDir, err)
		}
		e.rebuilt = n
	}
	if _, err := e.reapLocal(); err != nil {
		l.Close()
		return fmt.Errorf("the ledger %s: %w", l.Path(), err)
	}
	return nil
}

// Rebuilt returns how many run folders New rebuilt the ledger from: not 0
// only when the ledger was missing or empty while run folders were there.
// The command line says so once.
func (e *Engine) Rebuilt() int { return e.rebuilt }

// rebuildLedger writes a row for every run folder in the runs folder, from
// what the folder holds, and returns how many it wrote.
func (e *Engine) rebuildLedger() (int, error) {
	dirents, err := os.ReadDir(e.cfg.RunsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := 0
	for _, d := range dirents {
		if !d.IsDir() || !journal.ValidRunID(d.Name()) {
			continue // links, the ledger's own files, anything else
		}
		folder, err := journal.OpenFolder(e.cfg.RunsDir, d.Name())
		if err != nil {
			continue
		}
		r, kids := e.rowFromFolder(folder, d.Name())
		ok, err := e.ledger.Restore(context.Background(), r, kids)
		if err != nil {
			return n, err
		}
		if ok {
			n++
		}
	}
	return n, nil
}

// rowFromFolder rebuilds a run's row from its folder: the owner and
// lineage from the sealed request, the name from the first run.start
// event, the outcome from result.json, the children from the checked
// journal. What the folder lacks stays empty; a run without a result is
// abandoned, or running (under its lease) while its lock is held.
func (e *Engine) rowFromFolder(folder *journal.Folder, id string) (ledger.Run, []ledger.Child) {
	r := ledger.Run{ID: id, Dir: folder.Dir(), Status: ledger.RunAbandoned}
	if fi, err := os.Stat(folder.Path(journal.RequestFile)); err == nil {
		r.CreatedAt = fi.ModTime()
	} else if fi, err := os.Stat(folder.Dir()); err == nil {
		r.CreatedAt = fi.ModTime()
	}
	k, kerr := journal.LoadKey(e.stateDir, id)
	if kerr == nil {
		if req, err := readRequest(folder, k); err == nil {
			r.Owner, r.ParentRun = req.Parent, req.ResumeFromRunId
		}
	}
	r.Name = nameFromEvents(folder)
	if data, err := folder.ReadFile(journal.ResultFile); err == nil {
		var res WorkflowResult
		if json.Unmarshal(data, &res) == nil && res.StopReason != "" {
			r.Status = res.StopReason.RunStatus()
			r.StopReason, r.ErrorCode, r.Error = string(res.StopReason), string(res.ErrorCode), res.Error
			r.AgentsSpawned, r.Usage = res.AgentsSpawned, res.Usage
			a := res.Agents
			r.Agents = ledger.Counts{Completed: a.Completed, Failed: a.Failed, TimedOut: a.TimedOut, Cancelled: a.Cancelled, Replayed: a.Replayed}
			if fi, err := os.Stat(folder.Path(journal.ResultFile)); err == nil {
				end := fi.ModTime()
				r.EndedAt, r.UpdatedAt = &end, end
			}
		}
	} else if free, known := folder.LockFree(); known && !free {
		r.Status, r.LeaseUntil = ledger.RunRunning, time.Now().Add(e.ledger.Lease())
	}
	var kids []ledger.Child
	if kerr == nil {
		at, _ := journal.LoadHead(e.stateDir, id)
		entries, _ := folder.ReadJournal(k, at)
		for _, en := range entries {
			var key struct {
				Prompt  string `json:"prompt"`
				Persona string `json:"persona"`
			}
			_ = json.Unmarshal([]byte(en.Key), &key)
			result := en.Text
			if len(en.Output) > 0 {
				result = string(en.Output)
			}
			kids = append(kids, ledger.Child{AgentID: en.AgentID, Seq: en.Seq, Label: en.Label, Phase: en.Phase, Persona: key.Persona,
				Status: ledger.ChildStatus(en.Status), Replayed: en.Replayed, PromptExcerpt: excerpt(key.Prompt), ResultExcerpt: excerpt(result),
				Error: en.Error, Failure: string(en.Failure), Usage: en.Usage})
		}
		sort.Slice(kids, func(i, j int) bool { return kids[i].Seq < kids[j].Seq })
	}
	return r, kids
}

// nameFromEvents is the meta name of the first run.start in the folder's
// events.jsonl, or "".
func nameFromEvents(folder *journal.Folder) string {
	data, err := folder.ReadFile(journal.EventsFile)
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		var ev Event
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == EventRunStart && ev.Meta != nil {
			return ev.Meta.Name
		}
	}
	return ""
}
