package listing_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/ledger"
	"github.com/wfrun/wfrun/engine/listing"
	"github.com/wfrun/wfrun/internal/testkit/leaktest"
)

func TestMain(m *testing.M) {
	engine.Init() // isolated runs (WFRUN_TEST_ISOLATE=process) re-execute this test binary
	leaktest.VerifyTestMain(m, leaktest.StateDir())
}

// holding is a provider whose agents run until their context is done.
type holding struct {
	agentapi.Provider
	started chan struct{}
}

func (p *holding) Run(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
	p.started <- struct{}{}
	<-ctx.Done()
	return agentapi.Result{Status: agentapi.StatusCancelled, Failure: agentapi.FailureCancelled, Error: "cancelled"}, nil
}

func TestLedgerVerbs_StopWaitsForTheRunAndNoteKeepsItsStatus(t *testing.T) {
	dir := t.TempDir()
	runs, state := filepath.Join(dir, "runs"), filepath.Join(dir, "state")
	p := &holding{Provider: fake.New(fake.Options{}), started: make(chan struct{}, 1)}
	eng, err := engine.New(engine.Config{RunsDir: runs, StateDir: state, Providers: []agentapi.Provider{p}, DefaultProvider: p.Name()})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(context.Background())
	if msg := listing.Rebuilt(eng); msg != "" {
		t.Fatalf("a new ledger says it was rebuilt: %s", msg)
	}
	run, err := eng.Start(context.Background(), engine.WorkflowStartRequest{Parent: "test", Script: "export const meta = {name: 'held', description: 'x'}\nreturn await agent('hold')"})
	if err != nil {
		t.Fatal(err)
	}
	<-p.started

	r, stopped, err := listing.StopAndWait(eng, run.ID(), "")
	if err != nil || !stopped || r.Status != ledger.RunCancelled {
		t.Fatalf("stop: %+v stopped %v, %v", r, stopped, err)
	}
	if res := run.Wait(); res.StopReason != engine.StopCancelled {
		t.Fatalf("the stopped run: %+v", res)
	}
	if _, _, err := listing.StopAndWait(eng, run.ID(), "again"); err == nil {
		t.Fatal("a second stop of an ended run was not refused")
	}

	// Another engine over the same folder sees the row and notes it.
	other, err := listing.OpenLedger(runs, state)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(context.Background())
	noted, err := listing.Note(other, run.ID(), "look again tomorrow")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(noted.Timeline); n == 0 || noted.Timeline[n-1].Detail != "look again tomorrow" || noted.RunID != run.ID() {
		t.Fatalf("timeline %+v", noted.Timeline)
	}
	if got, _ := other.Ledger().Get(context.Background(), run.ID()); got.Status != ledger.RunCancelled {
		t.Fatalf("a note changed the status to %s", got.Status)
	}
	if _, err := listing.Note(other, run.ID(), " "); err == nil {
		t.Fatal("an empty note was taken")
	}
	if _, err := listing.Show(other.Ledger(), "no-such-run"); !errors.Is(err, ledger.ErrNotFound) || !strings.Contains(err.Error(), "wfrun runs lists the runs of "+other.Ledger().Path()) {
		t.Errorf("show of an unknown run: %v, want ErrNotFound saying where wfrun runs looks", err)
	}
}

func TestParseStatus(t *testing.T) {
	for _, c := range []struct {
		in   string
		want ledger.RunStatus
		ok   bool
	}{{"", "", true}, {"running", ledger.RunRunning, true}, {"cancelled", ledger.RunCancelled, true}, {"asleep", "", false}} {
		got, err := listing.ParseStatus(c.in)
		if got != c.want || (err == nil) != c.ok {
			t.Errorf("ParseStatus(%q) = %q, %v", c.in, got, err)
		}
	}
}
