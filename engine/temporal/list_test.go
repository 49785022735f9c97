package temporal_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	wftemporal "github.com/wfrun/wfrun/engine/temporal"
)

func TestRunsQuery_FiltersOnTheServer(t *testing.T) {
	base := "WorkflowType = 'wfrun.run'"
	cases := []struct {
		name string
		f    wftemporal.RunFilter
		want string
	}{
		{"all", wftemporal.RunFilter{}, base},
		{"parent", wftemporal.RunFilter{Parent: "cli"}, base + " AND WfrunParent = 'cli'"},
		{"name", wftemporal.RunFilter{Name: "review"}, base + " AND WfrunName = 'review'"},
		{"quotes are escaped", wftemporal.RunFilter{Name: `it's\`}, base + ` AND WfrunName = 'it\'s\\'`},
		{"running is also running for Temporal", wftemporal.RunFilter{Status: "running"}, base + " AND WfrunStatus = 'running' AND ExecutionStatus = 'Running'"},
		{"a stop reason Temporal also has", wftemporal.RunFilter{Status: "completed"}, base + " AND (WfrunStatus = 'completed' OR (WfrunStatus = 'running' AND ExecutionStatus = 'Completed'))"},
		{"ended by Temporal", wftemporal.RunFilter{Status: "timedout"}, base + " AND (WfrunStatus = 'timedout' OR (WfrunStatus = 'running' AND ExecutionStatus = 'TimedOut'))"},
		{"a stop reason only wfrun has", wftemporal.RunFilter{Status: "budget"}, base + " AND WfrunStatus = 'budget'"},
		{"all of them", wftemporal.RunFilter{Parent: "p", Name: "n", Status: "error"}, base + " AND WfrunParent = 'p' AND WfrunName = 'n' AND WfrunStatus = 'error'"},
	}
	for _, c := range cases {
		if got := wftemporal.RunsQuery(c.f); got != c.want {
			t.Errorf("%s: query\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
}

func TestWriteRuns(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var b bytes.Buffer
	wftemporal.WriteRuns(&b, nil, now)
	if b.String() != "No runs.\n" {
		t.Fatalf("no runs: %q", b.String())
	}
	b.Reset()
	wftemporal.WriteRuns(&b, []wftemporal.RunInfo{{RunID: "wf_1", Name: "review", Status: "completed", Parent: "cli", Start: now.Add(-90 * time.Second)}}, now)
	if got := b.String(); !strings.HasPrefix(got, "wf_1  review ") || !strings.Contains(got, " completed ") || !strings.Contains(got, " cli ") {
		t.Fatalf("line %q", got)
	}
}

func TestGCResult_WriteReport(t *testing.T) {
	res := wftemporal.GCResult{Histories: 3, Payloads: 5, Referenced: 2, Recent: 1, Deleted: []string{"k1", "k2"}, DeletedBytes: 2048}
	var b bytes.Buffer
	res.WriteReport(&b, time.Hour)
	if want := "deleted 2 of 5 payloads (2048 bytes); kept 2 that the 3 histories of the namespace refer to and 1 younger than 1h0m0s\n"; b.String() != want {
		t.Fatalf("report %q, want %q", b.String(), want)
	}
	res.DryRun = true
	b.Reset()
	res.WriteReport(&b, 0)
	if !strings.HasPrefix(b.String(), "would delete k1\nwould delete k2\nwould delete 2 of 5 payloads") {
		t.Fatalf("dry run report %q", b.String())
	}
}

func TestFindDevServer(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	if _, err := wftemporal.FindDevServer(); err == nil || !strings.Contains(err.Error(), "GOTOOLCHAIN=go1.27.3 go install ./cmd/wfrun-temporal") {
		t.Fatalf("without the program: %v", err)
	}
	bin := filepath.Join(dir, wftemporal.DevServerBinary)
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := wftemporal.FindDevServer(); err != nil || got != bin {
		t.Fatalf("on PATH: %q %v, want %s", got, err, bin)
	}
}

func TestSharedPayloadStore_OpensAURLOnce(t *testing.T) {
	dir := t.TempDir()
	a, err := wftemporal.SharedPayloadStore(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := wftemporal.SharedPayloadStore(dir)
	if a != b {
		t.Fatalf("two stores for %s: %v, %v", dir, a, b)
	}
	_, err1 := wftemporal.SharedPayloadStore("s3://?region=x")
	_, err2 := wftemporal.SharedPayloadStore("s3://?region=x")
	if err1 == nil || !errors.Is(err2, err1) {
		t.Fatalf("a store that did not open: %v, then %v", err1, err2)
	}
}

func TestConnection_ServerName(t *testing.T) {
	if got := (wftemporal.Connection{Address: "h:1"}).ServerName(); got != "h:1" {
		t.Errorf("named: %q", got)
	}
	if got := (wftemporal.Connection{Profile: "p"}).ServerName(); got != "the server of the Temporal configuration" {
		t.Errorf("from the configuration: %q", got)
	}
}
