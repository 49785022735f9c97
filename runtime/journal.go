package runtime

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/internal/wferr"
)

// Journal is where a durable run writes down each child the moment it
// ends, and where it finds the children an earlier attempt of the run
// finished. The runtime asks nothing else of it, and everything that
// crosses is plain data, so that the same seam serves a journal file, a
// pipe to a VM in another process, or a workflow engine's history.
//
// The rules of replay live here in the runtime, not in the journal: calls
// are matched in start order (seq), the longest prefix of completed calls
// whose keys are unchanged is answered from Prior, and the first changed,
// failed or unfinished call runs live, as does every call after it.
type Journal interface {
	// Prior returns the children an earlier attempt journaled, in any
	// order (nil for a fresh run). It is called once, before the script
	// starts. When several entries have the same Seq, the last one wins.
	Prior() []JournalEntry
	// Record makes e durable: when it returns nil, e survives a crash of
	// the process. The run calls it before the child's promise settles in
	// the script, one call at a time; an error ends the run with
	// RESOURCE_LIMIT, since an agent the journal cannot remember would be
	// paid for again on resume.
	Record(e JournalEntry) error
}

// JournalEntry is one finished child as a journal keeps it: which call it
// was (Seq and Key), in which order its outcome reached the script (Order),
// and the outcome itself.
type JournalEntry struct {
	Seq int `json:"seq"`
	// Order is the position, counted from 1 within the attempt that wrote
	// the entry, in which the child's outcome was handed to the script. A
	// resumed run hands replayed outcomes over in this order, so that a
	// script whose later calls depend on which child finished first (a
	// pipeline, a race) makes the same calls again.
	Order int `json:"order"`
	// Key is CallKey of the call's request: a replayed call must have the
	// same one.
	Key     string `json:"key"`
	AgentID string `json:"agentId"`
	Label   string `json:"label,omitempty"`
	Phase   string `json:"phase,omitempty"`

	Status   agentapi.Status      `json:"status"`
	Failure  agentapi.FailureKind `json:"failure,omitempty"`
	Error    string               `json:"error,omitempty"`
	Text     string               `json:"text,omitempty"`
	Output   json.RawMessage      `json:"output,omitempty"` // a completed schema call's answer
	Note     string               `json:"note,omitempty"`
	Usage    agentapi.Usage       `json:"usage"`
	Worktree *agentapi.Worktree   `json:"worktree,omitempty"`
	// Replayed says this attempt answered the call from an earlier
	// attempt's entry rather than from the provider.
	Replayed bool `json:"replayed,omitempty"`
}

// CallKey is the journal key of a child's request: canonical JSON (keys
// sorted, no space) of what decides its answer — prompt, schema, model,
// persona, tools, effort, isolation and maxTurns. Label, phase and timeout
// are not part of it, and both call forms of agent() give the same key for
// the same request. Tools are compared as a set; no tools option (the
// provider's default set) differs from an empty list.
func CallKey(req agentapi.Request) string {
	k := struct {
		Effort    string          `json:"effort,omitempty"`
		Isolation string          `json:"isolation,omitempty"`
		MaxTurns  int             `json:"maxTurns,omitempty"`
		Model     string          `json:"model,omitempty"`
		Persona   string          `json:"persona,omitempty"`
		Prompt    string          `json:"prompt"`
		Schema    json.RawMessage `json:"schema,omitempty"`
		Tools     *[]string       `json:"tools,omitempty"`
	}{Effort: req.Effort, Isolation: req.Isolation, MaxTurns: req.MaxTurns, Model: req.Model,
		Persona: req.Persona, Prompt: req.Prompt, Schema: canonicalJSON(req.Schema)}
	if req.Tools != nil {
		tools := slices.Clone(req.Tools)
		slices.Sort(tools)
		tools = slices.Compact(tools)
		k.Tools = &tools
	}
	b, _ := json.Marshal(k) // strings, numbers and valid JSON only: it cannot fail
	return string(b)
}

// canonicalJSON re-encodes valid JSON with sorted keys and no space, so
// that one schema written with its keys in another order has one key.
func canonicalJSON(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return raw
	}
	b, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return b
}

// journalError is the fatal error of a journal write that failed. A
// journal that says why with a RESOURCE_LIMIT of its own (a run folder's
// size budget) is taken at its word.
func journalError(seq int, err error) *wferr.Error {
	if e, ok := wferr.As(err); ok && e.Code == wferr.ResourceLimit {
		return e
	}
	return wferr.Wrap(wferr.ResourceLimit, err,
		"the run could not write agent %d to its journal (%v), so it stopped rather than pay for agents a resume could not replay; free disk space or fix the runs folder, then resume the run", seq, err)
}
