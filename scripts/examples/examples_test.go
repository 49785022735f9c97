// Package examples_test runs every example workflow in this folder through
// the public engine API with its fake-provider rules, so the examples in the
// manual cannot rot.
//
// For an example NAME.js the test reads:
//
//	NAME.rules.json    the fake provider's rules (required)
//	NAME.meta.json     meta as data, for DSH-dialect scripts without `export const meta`
//	NAME.request.json  further request fields in their JSON form, e.g. {"budgetTokens": 4000}
//	testdata/NAME.golden.json  the expected value and agent counts
//
// Run `go test ./scripts/examples -update` to rewrite the golden files.
package examples_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/internal/testkit/leaktest"

	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/enginetest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden.json from the current results")

func TestMain(m *testing.M) {
	engine.Init() // isolated runs and sandboxed tools re-execute this test binary
	leaktest.VerifyTestMain(m)
}

// golden is what an example's golden file pins: the value and how the
// children ended. Both are deterministic under the fake provider.
type golden struct {
	Value         json.RawMessage    `json:"value"`
	AgentsSpawned int                `json:"agentsSpawned"`
	Agents        engine.AgentCounts `json:"agents"`
}

func TestExamples_CompleteWithTheirGoldenValues(t *testing.T) {
	scripts, err := filepath.Glob("*.js")
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no example scripts found (err %v)", err)
	}
	for _, path := range scripts {
		name := strings.TrimSuffix(path, ".js")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res := runExample(t, name)
			if res.StopReason != engine.StopCompleted {
				t.Fatalf("stopReason %s, %s: %s (line %d)", res.StopReason, res.ErrorCode, res.Error, res.ErrorLine)
			}
			if res.AgentsSpawned == 0 {
				t.Fatalf("the example spawned no agents")
			}
			got := golden{Value: res.Value, AgentsSpawned: res.AgentsSpawned, Agents: res.Agents}
			compareGolden(t, filepath.Join("testdata", name+".golden.json"), got)
		})
	}
}

// runExample runs NAME.js with its rules (and meta and request files, if
// any) on an engine of its own and checks the event-stream invariants.
func runExample(t *testing.T, name string) engine.WorkflowResult {
	t.Helper()
	rules, err := fake.Load(name + ".rules.json")
	if err != nil {
		t.Fatal(err)
	}
	eng := enginetest.New(t, engine.Config{FakeRules: rules})

	var req engine.WorkflowStartRequest
	if data, ok := readOptional(t, name+".request.json"); ok {
		if err := json.Unmarshal(data, &req); err != nil {
			t.Fatalf("%s.request.json: %v", name, err)
		}
	}
	if data, ok := readOptional(t, name+".meta.json"); ok {
		req.Meta = data
	}
	src, err := os.ReadFile(name + ".js")
	if err != nil {
		t.Fatal(err)
	}
	req.Script, req.ScriptName, req.Parent = string(src), name+".js", "examples-test"

	res, rec := enginetest.Run(t, eng, req)
	if n := len(rec.Of(engine.EventAgentStart)); n != res.AgentsSpawned {
		t.Errorf("%d agent.start events for %d spawned agents", n, res.AgentsSpawned)
	}
	return res
}

func readOptional(t *testing.T, path string) ([]byte, bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return data, true
}

func compareGolden(t *testing.T, path string, got golden) {
	t.Helper()
	want, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./scripts/examples -update to create it)", err)
	}
	if !bytes.Equal(have, want) {
		t.Errorf("%s differs from the run (go test ./scripts/examples -update rewrites it)\n--- golden\n%s\n--- got\n%s", path, have, want)
	}
}
