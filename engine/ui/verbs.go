package ui

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/journal"
	"github.com/wfrun/wfrun/engine/ledger"
)

// maxVerbText bounds a stop's reason and a note, in characters.
const maxVerbText = 4000

// verbButton is one control verb as the run's page offers it.
type verbButton struct {
	Verb    ledger.Verb
	Label   string
	Allowed bool
	Why     string // Decide's sentence when it refuses
}

// verbButtons asks ledger.Decide about every verb for a run of status s.
func verbButtons(s ledger.RunStatus) []verbButton {
	var out []verbButton
	for _, v := range ledger.Verbs() {
		b := verbButton{Verb: v, Label: verbLabel(v), Allowed: true}
		if _, err := ledger.Decide(s, v); err != nil {
			b.Allowed, b.Why = false, err.Error()
		}
		out = append(out, b)
	}
	return out
}

func verbLabel(v ledger.Verb) string {
	switch v {
	case ledger.Stop:
		return "Stop"
	case ledger.Retry:
		return "Retry"
	case ledger.Continue:
		return "Continue"
	case ledger.FollowUp:
		return "Note"
	}
	return string(v)
}

// verbOf reads the verb of a POST path: the ledger's names, and "note"
// for follow_up as the CLI calls it.
func verbOf(name string) (ledger.Verb, bool) {
	if name == "note" {
		return ledger.FollowUp, true
	}
	for _, v := range ledger.Verbs() {
		if string(v) == name {
			return v, true
		}
	}
	return "", false
}

// verbAnswer is the JSON answer of a verb.
type verbAnswer struct {
	OK       bool             `json:"ok"`
	Verb     ledger.Verb      `json:"verb,omitempty"`
	RunID    string           `json:"runId,omitempty"`
	NewRunID string           `json:"newRunId,omitempty"` // retry: the new run
	Status   ledger.RunStatus `json:"status,omitempty"`   // the run's status after the verb, as the ledger has it
	Message  string           `json:"message,omitempty"`
	Error    string           `json:"error,omitempty"`
}

// verb applies a control verb: POST /runs/{id}/{stop|retry|continue|note},
// with a form field reason (stop) or text (note). The ledger's rules decide
// first, as for the CLI; a refusal is 409 with Decide's sentence.
func (s *Server) verb(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	v, ok := verbOf(r.PathValue("verb"))
	if !ok {
		writeJSON(w, http.StatusNotFound, verbAnswer{Error: "there is no verb " + quote(r.PathValue("verb")) + "; the verbs are stop, retry, continue and note"})
		return
	}
	ans := verbAnswer{Verb: v, RunID: id}
	fail := func(code int, msg string) {
		ans.Error = msg
		writeJSON(w, code, ans)
	}
	if !journal.ValidRunID(id) {
		fail(http.StatusNotFound, quote(id)+" is not a run id (wf_ and 16 hex digits)")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		fail(http.StatusBadRequest, "the request's form cannot be read: "+err.Error())
		return
	}
	text := strings.TrimSpace(r.PostForm.Get("text"))
	if v == ledger.Stop {
		text = strings.TrimSpace(r.PostForm.Get("reason"))
	}
	if utf8.RuneCountInString(text) > maxVerbText {
		fail(http.StatusBadRequest, "the text is longer than 4000 characters; shorten it")
		return
	}
	eng := s.cfg.Engine
	s.sweep()
	before, err := eng.Ledger().Get(r.Context(), id)
	if errors.Is(err, ledger.ErrNotFound) {
		fail(http.StatusNotFound, "the ledger holds no run "+id)
		return
	}
	if err != nil {
		fail(http.StatusInternalServerError, "the run ledger cannot be read: "+err.Error())
		return
	}
	if _, err := ledger.Decide(before.Status, v); err != nil {
		fail(http.StatusConflict, (&ledger.RefusedError{Verb: v, RunID: id, Err: err}).Error())
		return
	}
	// A retry or a continue runs in this process; the request that asked
	// for it ends long before the run does.
	ctx := context.WithoutCancel(r.Context())
	switch v {
	case ledger.Stop:
		if text == "" {
			text = "stopped from wfrun ui"
		}
		_, err = eng.Stop(id, text)
		ans.Message = "Stop requested. The run's process cancels it at its next heartbeat; this page shows it when it has."
	case ledger.Retry:
		var run *engine.Run
		if run, err = eng.Retry(ctx, id, nil); err == nil {
			ans.NewRunID = run.ID()
			ans.Message = "Retried as " + run.ID() + ", a new run that replays the finished agents; it runs in this wfrun ui process."
		}
	case ledger.Continue:
		if _, err = eng.Continue(ctx, id, nil); err == nil {
			ans.Message = "Continued in place, replaying the journaled agents; it runs in this wfrun ui process."
		}
	case ledger.FollowUp:
		if err = eng.Note(id, text); err == nil {
			ans.Message = "Note added to the run's timeline."
		}
	}
	if err != nil {
		fail(verbStatus(err), sentence(err))
		return
	}
	if after, err := eng.Ledger().Get(r.Context(), id); err == nil {
		ans.Status = after.Status
	}
	ans.OK = true
	writeJSON(w, http.StatusOK, ans)
}

// verbStatus is the HTTP status of an engine's verb error.
func verbStatus(err error) int {
	var refused *ledger.RefusedError
	switch {
	case errors.As(err, &refused):
		return http.StatusConflict // the run changed between our check and the verb's
	case errors.Is(err, ledger.ErrNotFound):
		return http.StatusNotFound
	case engine.CodeOf(err) == engine.CodeInvalidRequest:
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// sentence is an error's message without its code: the page says it to a
// person.
func sentence(err error) string {
	var e *engine.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(true)
	_ = enc.Encode(v)
}
