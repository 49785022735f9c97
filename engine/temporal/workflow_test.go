package temporal_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/engine"
	wftemporal "github.com/wfrun/wfrun/engine/temporal"
	"github.com/wfrun/wfrun/internal/eventcheck"
)

// testEnv is a workflow test environment with the wfrun workflow
// registered over an engine whose only provider is the fake, and the
// agent activity mocked by agent (nil: the fake provider answers).
type testEnv struct {
	*testsuite.TestWorkflowEnvironment
	rec   eventcheck.Recorder
	mu    sync.Mutex
	calls []agentapi.Request
}

func newTestEnv(t *testing.T, agent func(agentapi.Request) (agentapi.Result, error)) *testEnv {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(discard{})
	te := &testEnv{TestWorkflowEnvironment: s.NewTestWorkflowEnvironment()}
	eng, err := engine.New(engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close(context.Background()) })
	opts := wftemporal.Options{Payloads: wftemporal.DirStore{Dir: t.TempDir()}, Events: te.rec.Record}
	te.SetDataConverter(wftemporal.NewDataConverter(opts.Payloads))
	te.SetWorkerOptions(worker.Options{DeadlockDetectionTimeout: 20 * time.Second})
	wftemporal.Register(te, eng, opts)
	fakeP := fake.New(fake.Options{})
	if agent == nil {
		agent = func(req agentapi.Request) (agentapi.Result, error) { return fakeP.Run(context.Background(), req) }
	}
	te.OnActivity("wfrun.agent", mock.Anything, mock.Anything).Return(
		func(_ context.Context, call wftemporal.AgentCall) (agentapi.Result, error) {
			te.mu.Lock()
			te.calls = append(te.calls, call.Request)
			te.mu.Unlock()
			return agent(call.Request)
		})
	return te
}

func (te *testEnv) run(t *testing.T, req engine.WorkflowStartRequest) engine.WorkflowResult {
	t.Helper()
	if req.Parent == "" {
		req.Parent = "test"
	}
	te.ExecuteWorkflow(wftemporal.WorkflowName, req)
	if !te.IsWorkflowCompleted() {
		t.Fatal("the workflow did not complete")
	}
	if err := te.GetWorkflowError(); err != nil {
		t.Fatalf("workflow error: %v", err)
	}
	var res engine.WorkflowResult
	if err := te.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	return res
}

const fanOut = `export const meta = {name: 'fan', description: 'fan out'}
const xs = await parallel(['a', 'b', 'c'].map(x => () => agent('say ' + x)))
const ys = await pipeline([1, 2], n => agent('one ' + n), (prev, n) => agent('two ' + prev))
return {xs, ys}`

func TestWorkflow_RunsAScriptWithEachAgentAnActivity(t *testing.T) {
	te := newTestEnv(t, nil)
	res := te.run(t, engine.WorkflowStartRequest{Script: fanOut})
	if res.StopReason != engine.StopCompleted {
		t.Fatalf("result %+v", res)
	}
	want := `{"xs":["say a","say b","say c"],"ys":["two one 1","two one 2"]}`
	if string(res.Value) != want {
		t.Fatalf("value %s, want %s", res.Value, want)
	}
	if res.AgentsSpawned != 7 || res.Agents.Completed != 7 || len(te.calls) != 7 {
		t.Fatalf("agents %+v, activity calls %d", res, len(te.calls))
	}
	if err := eventcheck.Check(te.rec.Events(), eventcheck.Options{RunEvents: true}); err != nil {
		t.Fatal(err)
	}
}

func TestWorkflow_AFailingAgentIsNullAndABrokenProviderEndsTheRun(t *testing.T) {
	te := newTestEnv(t, func(req agentapi.Request) (agentapi.Result, error) {
		if strings.Contains(req.Prompt, "fail") {
			return agentapi.Result{Status: agentapi.StatusFailed, Failure: agentapi.FailureTaskFailed, Error: "could not"}, nil
		}
		return agentapi.Result{Status: agentapi.StatusCompleted, Text: "ok"}, nil
	})
	res := te.run(t, engine.WorkflowStartRequest{Script: `export const meta = {name: 'x', description: 'x'}
return [await agent('fail me'), await agent('fine')]`})
	if string(res.Value) != `[null,"ok"]` || res.Agents.Failed != 1 || res.Agents.Completed != 1 {
		t.Fatalf("result %+v %s", res, res.Value)
	}

	te = newTestEnv(t, func(req agentapi.Request) (agentapi.Result, error) {
		// What the agent activity returns for a provider's error.
		return agentapi.Result{}, temporal.NewNonRetryableApplicationError("no credentials", "", nil)
	})
	res = te.run(t, engine.WorkflowStartRequest{Script: `export const meta = {name: 'x', description: 'x'}
return await agent('x')`})
	if res.StopReason != engine.StopError || res.ErrorCode != engine.ErrorCode("AGENT_START") || !strings.Contains(res.Error, "no credentials") {
		t.Fatalf("result %+v", res)
	}
	if err := eventcheck.Check(te.rec.Events(), eventcheck.Options{RunEvents: true}); err != nil {
		t.Fatal(err)
	}
}

func TestWorkflow_APreCheckFailureIsTheResult(t *testing.T) {
	te := newTestEnv(t, nil)
	res := te.run(t, engine.WorkflowStartRequest{Script: `return 1`})
	if res.StopReason != engine.StopError || res.ErrorCode != engine.ErrorCode("META_INVALID") || res.AgentsSpawned != 0 {
		t.Fatalf("result %+v", res)
	}
}

func TestWorkflow_ValueEqualsAnInProcessRun(t *testing.T) {
	eng, err := engine.New(engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(context.Background())
	local := eng.Run(context.Background(), engine.WorkflowStartRequest{Script: fanOut, Parent: "test"})
	te := newTestEnv(t, nil)
	res := te.run(t, engine.WorkflowStartRequest{Script: fanOut})
	if !jsonEqual(local.Value, res.Value) || local.Agents != res.Agents || local.Usage != res.Usage {
		t.Fatalf("in process %+v %s\non temporal %+v %s", local, local.Value, res, res.Value)
	}
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	_ = json.Unmarshal(a, &x)
	_ = json.Unmarshal(b, &y)
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}

// discard is a Temporal logger that keeps the SDK's debug chatter out of
// test output.
type discard struct{}

func (discard) Debug(string, ...any) {}
func (discard) Info(string, ...any)  {}
func (discard) Warn(string, ...any)  {}
func (discard) Error(string, ...any) {}
