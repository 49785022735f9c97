package setup

import (
	"encoding/json"
	"errors"
	"path/filepath"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/journal"
	"github.com/wfrun/wfrun/internal/wferr"
)

// Resume completes req, a request that resumes (or retries, or
// continues) the run id of runsDir, with what the run's saved request
// says, before any engine or provider exists: the provider to build when
// req names none, and the isolation, which is a child process unless the
// run itself was started with isolate "none". fromSaved says the provider
// came from the saved request (the caller built it on purpose, so no
// default needs announcing).
//
// The saved request is read without checking the folder's seal: it only
// picks what to build, and the engine checks the seal when it resumes. An
// unreadable request picks nothing. A run with no folder is an
// INVALID_REQUEST error, unless req names its provider (the engine then
// says what is wrong with the run).
func Resume(runsDir, id string, req *engine.WorkflowStartRequest) (fromSaved bool, err error) {
	saved, err := savedRequest(runsDir, id)
	if errors.Is(err, journal.ErrNoFolder) && req.SubagentProvider == "" {
		abs, _ := filepath.Abs(runsDir)
		return false, wferr.New(wferr.InvalidRequest, "run %s has no folder in %s; wfrun runs lists the runs there (pass --runs-dir if they are elsewhere)", id, abs)
	}
	if req.SubagentProvider == "" && saved.SubagentProvider != "" {
		req.SubagentProvider = saved.SubagentProvider
		fromSaved = true
	}
	if req.Isolate == "" {
		req.Isolate = engine.IsolateProcess
		if saved.Isolate == engine.IsolateNone {
			req.Isolate = engine.IsolateNone
		}
	}
	return fromSaved, nil
}

// savedRequest is the request the folder of run id keeps, unsealed; the
// zero request when the folder has none or it is not JSON, and an error
// wrapping journal.ErrNoFolder when there is no folder.
func savedRequest(runsDir, id string) (engine.WorkflowStartRequest, error) {
	var saved engine.WorkflowStartRequest
	folder, err := journal.OpenFolder(runsDir, id)
	if err != nil {
		return saved, err
	}
	if data, err := folder.ReadFile(journal.RequestFile); err == nil {
		_ = json.Unmarshal(data, &saved)
	}
	return saved, nil
}
