package ui_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/ledger"
	"github.com/wfrun/wfrun/engine/ui"
)

func TestVerbsTheLedgerRefusesAnswerWithItsSentence(t *testing.T) {
	r := newRig(t, ui.Config{}, "")
	done := r.run(r.eng, `export const meta = { name: 'one', description: 'one agent' }
return await agent('Tell me.')`, "", 0)
	failed := r.run(r.eng, throws, "", 0)
	for _, c := range []struct {
		run, verb string
		status    ledger.RunStatus
		v         ledger.Verb
	}{
		{done.RunID, "stop", ledger.RunCompleted, ledger.Stop},
		{done.RunID, "retry", ledger.RunCompleted, ledger.Retry},
		{done.RunID, "continue", ledger.RunCompleted, ledger.Continue},
		{failed.RunID, "continue", ledger.RunFailed, ledger.Continue},
		{failed.RunID, "stop", ledger.RunFailed, ledger.Stop},
	} {
		t.Run(c.verb+" "+string(c.status), func(t *testing.T) {
			a := r.post("/runs/"+c.run+"/"+c.verb, nil)
			if a.code != http.StatusConflict {
				t.Fatalf("%d, want 409: %s", a.code, a.body)
			}
			_, why := ledger.Decide(c.status, c.v)
			want := (&ledger.RefusedError{Verb: c.v, RunID: c.run, Err: why}).Error()
			if got := a.verb(t); got.OK || got.Error != want {
				t.Errorf("the answer %+v, want the error %q", got, want)
			}
		})
	}
	for _, c := range []struct {
		path string
		form url.Values
		code int
		says string
	}{
		{"/runs/" + done.RunID + "/note", url.Values{"text": {"  "}}, http.StatusBadRequest, "the note is empty"},
		{"/runs/" + done.RunID + "/note", url.Values{"text": {strings.Repeat("x", 4001)}}, http.StatusBadRequest, "longer than 4000"},
		{"/runs/wf_0000000000000000/stop", nil, http.StatusNotFound, "holds no run"},
		{"/runs/not-a-run/stop", nil, http.StatusNotFound, "is not a run id"},
		{"/runs/" + done.RunID + "/explode", nil, http.StatusNotFound, "there is no verb"},
	} {
		a := r.post(c.path, c.form)
		if a.code != c.code || !strings.Contains(a.verb(t).Error, c.says) {
			t.Errorf("POST %s: %d %s, want %d saying %q", c.path, a.code, a.body, c.code, c.says)
		}
	}
	if a := r.get("/runs/" + done.RunID + "/stop"); a.code != http.StatusNotFound && a.code != http.StatusMethodNotAllowed {
		t.Errorf("a GET applied a verb: %d", a.code)
	}
	if row, _ := r.eng.Ledger().Get(context.Background(), done.RunID); row.Status != ledger.RunCompleted {
		t.Errorf("a refused verb changed the run: %s", row.Status)
	}
}

func TestStopOnARunOfAnotherProcessCancelsItAtItsNextHeartbeat(t *testing.T) {
	r := newRig(t, ui.Config{}, "")
	other := r.engine(slowRules)
	run, err := other.Start(context.Background(), engine.WorkflowStartRequest{Script: slow, Parent: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Cancel("the test is over")
	a := r.post("/runs/"+run.ID()+"/stop", url.Values{"reason": {"enough"}})
	if got := a.verb(t); a.code != http.StatusOK || !got.OK || !strings.Contains(got.Message, "next heartbeat") {
		t.Fatalf("stop: %d %s", a.code, a.body)
	}
	res := run.Wait()
	if res.StopReason != engine.StopCancelled || !strings.Contains(res.Error, "enough") {
		t.Fatalf("the stopped run: %+v", res)
	}
	waitFor(t, "the ledger to show the run cancelled", func() bool {
		row, _ := r.eng.Ledger().Get(context.Background(), run.ID())
		return row.Status == ledger.RunCancelled
	})
	if page := r.get("/runs/" + run.ID()); !strings.Contains(page.body, `id="run-status" class="badge st-cancelled"`) {
		t.Errorf("the page does not show the run cancelled")
	}
}

func TestRetryStartsANewRunInThisProcessLinkedToTheOldOne(t *testing.T) {
	r := newRig(t, ui.Config{}, "")
	failed := r.run(r.eng, throws, "", 0)
	a := r.post("/runs/"+failed.RunID+"/retry", nil)
	got := a.verb(t)
	if a.code != http.StatusOK || !got.OK || got.NewRunID == "" || !strings.Contains(got.Message, got.NewRunID) {
		t.Fatalf("retry: %d %s", a.code, a.body)
	}
	waitFor(t, "the retry to settle", func() bool {
		row, err := r.eng.Ledger().Get(context.Background(), got.NewRunID)
		return err == nil && row.Status != ledger.RunRunning
	})
	row, _ := r.eng.Ledger().Get(context.Background(), got.NewRunID)
	if row.ParentRun != failed.RunID || row.Agents.Replayed != 1 {
		t.Errorf("the retry's row: %+v", row)
	}
	if page := r.get("/runs/" + failed.RunID); !strings.Contains(page.body, got.NewRunID) {
		t.Error("the old run's page does not name its retry")
	}
}

func TestContinueResumesAnAbandonedRunInPlace(t *testing.T) {
	r := newPlainRig(t, ui.Config{})
	// A run whose process died: its folder and journal are there, its
	// lease ran out. A run killed mid-flight is what the CLI's end-to-end
	// test makes; here the folder comes from a run that finished, and the
	// ledger row is set back to a running row with a dead lease.
	res := r.run(r.eng, `export const meta = { name: 'one', description: 'one agent' }
return await agent('Tell me.')`, "", 0)
	r.abandonedAgain(res.RunID)
	a := r.post("/runs/"+res.RunID+"/continue", nil)
	if got := a.verb(t); a.code != http.StatusOK || !got.OK {
		t.Fatalf("continue: %d %s", a.code, a.body)
	}
	waitFor(t, "the continued run to settle", func() bool {
		row, _ := r.eng.Ledger().Get(context.Background(), res.RunID)
		return row.Status == ledger.RunCompleted
	})
	row, _ := r.eng.Ledger().Get(context.Background(), res.RunID)
	if row.Agents.Replayed != 1 {
		t.Errorf("the continued run replayed %d agents, want 1", row.Agents.Replayed)
	}
}

func TestANoteGoesOnTheTimelineAndTheStatusStays(t *testing.T) {
	r := newRig(t, ui.Config{}, "")
	res := r.run(r.eng, throws, "", 0)
	a := r.post("/runs/"+res.RunID+"/note", url.Values{"text": {"look at <this> later"}})
	if got := a.verb(t); a.code != http.StatusOK || !got.OK || got.Status != string(ledger.RunFailed) {
		t.Fatalf("note: %d %s", a.code, a.body)
	}
	page := r.get("/runs/" + res.RunID)
	if !strings.Contains(page.body, "look at &lt;this&gt; later") {
		t.Errorf("the note is not on the page's timeline")
	}
}
