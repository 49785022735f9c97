package setup_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/setup"
	"github.com/wfrun/wfrun/internal/wferr"
)

func TestResumeTakesTheProviderAndIsolationOfTheSavedRequest(t *testing.T) {
	const id = "wf_0123456789abcdef"
	cases := []struct {
		name      string
		saved     string // request.json; "-" no folder, "" a folder without it
		req       engine.WorkflowStartRequest
		provider  string
		isolate   engine.Isolation
		fromSaved bool
		code      wferr.Code
	}{
		{name: "the saved provider and isolation", saved: `{"subagentProvider":"acp:x","isolate":"none"}`, provider: "acp:x", isolate: engine.IsolateNone, fromSaved: true},
		{name: "a provider named wins", saved: `{"subagentProvider":"acp:x"}`, req: engine.WorkflowStartRequest{SubagentProvider: "fake"}, provider: "fake", isolate: engine.IsolateProcess},
		{name: "an isolation asked for wins", saved: `{"isolate":"none"}`, req: engine.WorkflowStartRequest{Isolate: engine.IsolateProcess}, isolate: engine.IsolateProcess},
		{name: "a saved run without a provider", saved: `{"script":"return 1"}`, isolate: engine.IsolateProcess},
		{name: "a request that is not JSON picks nothing", saved: `not json`, isolate: engine.IsolateProcess},
		{name: "a folder without a request", saved: "", isolate: engine.IsolateProcess},
		{name: "no folder", saved: "-", code: wferr.InvalidRequest},
		{name: "no folder but a provider named", saved: "-", req: engine.WorkflowStartRequest{SubagentProvider: "fake"}, provider: "fake", isolate: engine.IsolateProcess},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			runs := t.TempDir()
			if c.saved != "-" {
				if err := os.Mkdir(filepath.Join(runs, id), 0o700); err != nil {
					t.Fatal(err)
				}
			}
			if c.saved != "-" && c.saved != "" {
				if err := os.WriteFile(filepath.Join(runs, id, "request.json"), []byte(c.saved), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			req := c.req
			fromSaved, err := setup.Resume(runs, id, &req)
			if c.code != "" {
				if wferr.CodeOf(err) != c.code {
					t.Fatalf("err = %v, want %s", err, c.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if req.SubagentProvider != c.provider || req.Isolate != c.isolate || fromSaved != c.fromSaved {
				t.Errorf("provider %q, isolate %q, from the saved request %v; want %q, %q, %v",
					req.SubagentProvider, req.Isolate, fromSaved, c.provider, c.isolate, c.fromSaved)
			}
		})
	}
}
