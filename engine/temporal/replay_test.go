package temporal_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/wfrun/wfrun/engine"
	wftemporal "github.com/wfrun/wfrun/engine/temporal"
)

// The histories under testdata/histories were recorded from real runs on
// the dev server (TestEndToEnd_RecordHistories): a parallel fan-out and a
// race whose agents ended out of order, and a pipeline whose stages
// interleaved by completion. Replaying them runs the script again from its
// start against the recorded completions; any step that came out
// differently is a non-determinism error.

func replayer(t *testing.T) worker.WorkflowReplayer {
	t.Helper()
	r, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{
		DataConverter: wftemporal.NewDataConverter(wftemporal.DirStore{Dir: t.TempDir()}),
	})
	if err != nil {
		t.Fatal(err)
	}
	wftemporal.RegisterReplay(r, wftemporal.Options{})
	return r
}

func TestReplay_RecordedFanOutAndPipelineReplayDeterministically(t *testing.T) {
	for _, f := range []string{"fanout.json", "pipeline.json"} {
		t.Run(f, func(t *testing.T) {
			if err := replayer(t).ReplayWorkflowHistoryFromJSONFile(discard{}, filepath.Join("testdata", "histories", f)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestReplay_AScriptChangedUnderARecordedHistoryIsANonDeterminismError(t *testing.T) {
	cases := []struct{ file, from, to string }{
		{"pipeline.json", "agent('two ' + x)", "agent('second ' + x)"},                  // another prompt at the same call
		{"fanout.json", "agent('race slow'), agent('race fast')", "agent('race fast')"}, // one call fewer
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata", "histories", c.file))
			if err != nil {
				t.Fatal(err)
			}
			h, err := client.HistoryFromJSON(bytes.NewReader(raw), client.HistoryJSONOptions{})
			if err != nil {
				t.Fatal(err)
			}
			in := h.Events[0].GetWorkflowExecutionStartedEventAttributes().GetInput().GetPayloads()[0]
			var req engine.WorkflowStartRequest
			if err := json.Unmarshal(in.Data, &req); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(req.Script, c.from) {
				t.Fatalf("the recorded script has no %q", c.from)
			}
			req.Script = strings.Replace(req.Script, c.from, c.to, 1)
			if in.Data, err = json.Marshal(req); err != nil {
				t.Fatal(err)
			}
			err = replayer(t).ReplayWorkflowHistory(discard{}, h)
			if err == nil || !strings.Contains(strings.ToLower(err.Error()), "nondetermin") {
				t.Fatalf("replaying a changed script: %v", err)
			}
		})
	}
}
