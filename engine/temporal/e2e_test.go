package temporal_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.uber.org/goleak"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/engine"
	wftemporal "github.com/wfrun/wfrun/engine/temporal"
	"github.com/wfrun/wfrun/internal/testkit/leaktest"
	"github.com/wfrun/wfrun/runtime/eventcheck"
)

// devServerEnv names the wfrun-temporal binary the end-to-end tests run
// their Temporal server with (.ci/run builds it from the nested module
// engine/temporal/server). Without it they are skipped.
const devServerEnv = "WFRUN_TEMPORAL_DEV"

// server is the dev server every end-to-end test of the package shares:
// one process, started by TestMain, on a loopback port.
var server struct {
	hostPort string
	skip     string
}

func TestMain(m *testing.M) {
	stop := startDevServer()
	code := m.Run()
	stop()
	if code == 0 {
		if err := goleak.Find(leaktest.Options()...); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// startDevServer starts the dev server when the binary is given and
// returns the function that stops it.
func startDevServer() (stop func()) {
	bin := os.Getenv(devServerEnv)
	if bin == "" {
		server.skip = devServerEnv + " is not set: build engine/temporal/server/cmd/wfrun-temporal (GOTOOLCHAIN=go1.27.3) and name it there to run the end-to-end tests"
		return func() {}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir, err := os.MkdirTemp("", "wfrun-temporal-e2e-")
	if err != nil {
		panic(err)
	}
	cmd := exec.Command(bin, "dev", "--port", strconv.Itoa(port), "--db", filepath.Join(dir, "temporal.db"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		panic(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		panic(fmt.Sprintf("cannot start the dev server %s: %v", bin, err))
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.Contains(line, "Temporal dev server at") {
		_ = cmd.Process.Kill()
		panic(fmt.Sprintf("the dev server did not come up: %q %v", line, err))
	}
	server.hostPort = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	os.Setenv("TEMPORAL_ADDRESS", server.hostPort) // Example runs against it
	return func() {
		stopServer(cmd)
		os.RemoveAll(dir)
	}
}

// cluster is one test's view of the dev server: its own task queue and
// payload store, a client, and the workers it starts.
type cluster struct {
	t     *testing.T
	opts  wftemporal.Options
	c     client.Client
	mu    sync.Mutex
	stops []func()
}

func newCluster(t *testing.T) *cluster {
	t.Helper()
	return newClusterWith(t, wftemporal.DirStore{Dir: t.TempDir()})
}

// newClusterWith is newCluster with its payloads in store.
func newClusterWith(t *testing.T, store wftemporal.PayloadStore) *cluster {
	t.Helper()
	if server.hostPort == "" {
		t.Skip(server.skip)
	}
	opts := wftemporal.Options{
		TaskQueue:        "q-" + strings.ReplaceAll(t.Name(), "/", "-"),
		Payloads:         store,
		HeartbeatTimeout: 2 * time.Second,
	}
	c, err := wftemporal.Dial(server.hostPort, "", opts)
	if err != nil {
		t.Fatal(err)
	}
	cl := &cluster{t: t, opts: opts, c: c}
	t.Cleanup(func() {
		cl.mu.Lock()
		stops := cl.stops
		cl.mu.Unlock()
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
		c.Close()
	})
	return cl
}

// worker starts a worker with an engine over p and returns the function
// that stops it (also called at cleanup; stopping twice is harmless).
func (cl *cluster) worker(p agentapi.Provider, configure ...func(*engine.Config)) (stop func()) {
	cl.t.Helper()
	cfg := engine.Config{Providers: []agentapi.Provider{p}, DefaultProvider: p.Name()}
	for _, f := range configure {
		f(&cfg)
	}
	eng, err := engine.New(cfg)
	if err != nil {
		cl.t.Fatal(err)
	}
	w := wftemporal.NewWorker(cl.c, eng, cl.opts)
	if err := w.Start(); err != nil {
		cl.t.Fatal(err)
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			w.Stop()
			_ = eng.Close(context.Background())
		})
	}
	cl.mu.Lock()
	cl.stops = append(cl.stops, stop)
	cl.mu.Unlock()
	return stop
}

func (cl *cluster) client() *wftemporal.Client {
	eng, err := engine.New(engine.Config{})
	if err != nil {
		cl.t.Fatal(err)
	}
	cl.t.Cleanup(func() { _ = eng.Close(context.Background()) })
	return wftemporal.NewClient(cl.c, eng, cl.opts)
}

// counting is a provider that counts, per prompt, the calls that started
// and those that finished (returned a completed result), around the fake.
type counting struct {
	agentapi.Provider
	mu       sync.Mutex
	started  map[string]int
	finished map[string]int
	lastCall time.Time // when the latest call started
}

func newCounting(delayMs int) *counting {
	return &counting{
		Provider: fake.New(fake.Options{Rules: &fake.Rules{Rules: []fake.Rule{{Match: "^", DelayMs: delayMs}}}}),
		started:  map[string]int{}, finished: map[string]int{},
	}
}

func (p *counting) Run(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
	p.mu.Lock()
	p.started[req.Prompt]++
	p.lastCall = time.Now()
	p.mu.Unlock()
	res, err := p.Provider.Run(ctx, req)
	if err == nil && res.Status == agentapi.StatusCompleted {
		p.mu.Lock()
		p.finished[req.Prompt]++
		p.mu.Unlock()
	}
	return res, err
}

func (p *counting) total() (started, finished int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, n := range p.started {
		started += n
	}
	for _, n := range p.finished {
		finished += n
	}
	return started, finished
}

// twelve fans out to eight agents three at a time, then pipes three
// items through two stages: fourteen agents.
const twelve = `export const meta = {name: 'e2e', description: 'a fan-out and a pipeline'}
const xs = await parallel([1, 2, 3, 4, 5, 6, 7, 8].map(n => () => agent('fan ' + n)))
phase('pipe')
const ys = await pipeline(['a', 'b', 'c'], x => agent('first ' + x), (prev, x) => agent('second ' + prev))
log('done', xs.length, ys.length)
return {xs, ys}`

func TestEndToEnd_AWorkerStoppedMidRunIsReplacedAndNoFinishedAgentRunsTwice(t *testing.T) {
	cl := newCluster(t)
	p := newCounting(1000)
	stop1 := cl.worker(p)
	req := engine.WorkflowStartRequest{Script: twelve, Parent: "e2e", Concurrency: 3}
	run, err := cl.client().Start(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		// Stop it with some agents finished and some in the middle of
		// their call (each takes a second at the provider).
		started, finished := p.total()
		p.mu.Lock()
		fresh := time.Since(p.lastCall) < 200*time.Millisecond
		p.mu.Unlock()
		if finished >= 4 && started > finished && fresh {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first worker did not get 4 agents finished and another one started in 30 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	t0 := time.Now()
	stop1()
	_, finishedBefore := p.total()
	t.Logf("the first worker stopped in %s", time.Since(t0).Round(time.Millisecond))
	cl.worker(p)

	var rec eventcheck.Recorder
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := run.Wait(ctx, rec.Record)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the second worker finished the run %s after the first stopped", time.Since(t0).Round(time.Millisecond))
	if res.StopReason != engine.StopCompleted || res.AgentsSpawned != 14 || res.Agents.Completed != 14 {
		t.Fatalf("result %+v", res)
	}
	if finishedBefore >= 14 {
		t.Fatalf("the first worker finished all %d agents before it was stopped; the test did not stop it mid-run", finishedBefore)
	}
	started, _ := p.total()
	t.Logf("the first worker finished %d of 14 agents before it stopped; %d provider calls in all", finishedBefore, started)
	if started <= 14 {
		t.Errorf("%d provider calls for 14 agents: no agent was cut short by the stop and run again", started)
	}
	p.mu.Lock()
	for prompt, n := range p.finished {
		if n != 1 {
			t.Errorf("agent %q finished %d times at the provider", prompt, n)
		}
	}
	if len(p.finished) != 14 {
		t.Errorf("%d distinct agents finished, want 14", len(p.finished))
	}
	p.mu.Unlock()

	// The same request in process gives the same result.
	eng, err := engine.New(engine.Config{Providers: []agentapi.Provider{newCounting(0)}, DefaultProvider: "fake"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(context.Background())
	local := eng.Run(context.Background(), req)
	if !jsonEqual(local.Value, res.Value) || local.Agents != res.Agents || local.Usage != res.Usage || local.StopReason != res.StopReason {
		t.Fatalf("in process %+v %s\non temporal %+v %s", local, local.Value, res, res.Value)
	}
	if err := eventcheck.Check(rec.Events(), eventcheck.Options{RunEvents: true}); err != nil {
		t.Fatal(err)
	}
	if n := len(rec.Of(engine.EventAgentEnd)); n != 14 {
		t.Fatalf("%d agent.end events, want 14", n)
	}
}

// blocking is a provider whose agents run until their context is done,
// noting each one that saw it.
type blocking struct {
	agentapi.Provider
	started, stopped chan string
}

func newBlocking() *blocking {
	return &blocking{Provider: fake.New(fake.Options{}), started: make(chan string, 16), stopped: make(chan string, 16)}
}

func (p *blocking) Run(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
	p.started <- req.Prompt
	<-ctx.Done()
	p.stopped <- req.Prompt
	return agentapi.Result{Status: agentapi.StatusCancelled, Failure: agentapi.FailureCancelled, Error: "cancelled"}, nil
}

func TestEndToEnd_CancellingTheWorkflowCancelsTheRunAndItsActivities(t *testing.T) {
	cl := newCluster(t)
	p := newBlocking()
	cl.worker(p)
	run, err := cl.client().Start(context.Background(), engine.WorkflowStartRequest{Parent: "e2e", Script: `export const meta = {name: 'cancel', description: 'x'}
return await parallel([1, 2].map(n => () => agent('block ' + n)))`})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		select {
		case <-p.started:
		case <-time.After(30 * time.Second):
			t.Fatal("the agents did not start")
		}
	}
	if err := run.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	var rec eventcheck.Recorder
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := run.Wait(ctx, rec.Record)
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != engine.StopCancelled || res.ErrorCode != engine.ErrorCode("CANCELLED") || res.Agents.Cancelled != 2 {
		t.Fatalf("result %+v", res)
	}
	if !strings.Contains(res.Error, "Temporal workflow was cancelled") {
		t.Fatalf("error %q", res.Error)
	}
	// The activities hear of it at their next heartbeat.
	for range 2 {
		select {
		case <-p.stopped:
		case <-time.After(30 * time.Second):
			t.Fatal("a cancelled run's agent activity kept running")
		}
	}
	if err := eventcheck.Check(rec.Events(), eventcheck.Options{RunEvents: true}); err != nil {
		t.Fatal(err)
	}
}

func TestEndToEnd_LargePayloadsLiveInTheStoreAndTheHistoryKeepsReferences(t *testing.T) {
	cl := newCluster(t)
	big := strings.Repeat("0123456789abcdef", 8<<10) // 128 KiB
	reply, _ := json.Marshal(big)
	cl.worker(fake.New(fake.Options{Rules: &fake.Rules{Rules: []fake.Rule{{Match: "big", Reply: reply}}}}))
	run, err := cl.client().Start(context.Background(), engine.WorkflowStartRequest{Parent: "e2e",
		Args: mustJSON(map[string]string{"pad": big}),
		Script: `export const meta = {name: 'big', description: 'x'}
const a = await agent('big answer please ' + args.pad.slice(0, 10))
return {len: a.length, same: a === args.pad, echo: a}`})
	if err != nil {
		t.Fatal(err)
	}
	res, err := run.Wait(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Len  int
		Same bool
		Echo string
	}
	if err := json.Unmarshal(res.Value, &v); err != nil || v.Len != len(big) || !v.Same || v.Echo != big {
		t.Fatalf("value len %d same %v err %v", v.Len, v.Same, err)
	}
	h := history(t, cl.c, run.ID())
	largest := 0
	for _, ev := range h.GetEvents() {
		largest = max(largest, proto.Size(ev))
	}
	if largest > wftemporal.PayloadInline+2048 {
		t.Fatalf("the largest history event is %d bytes; payloads over %d bytes belong in the store", largest, wftemporal.PayloadInline)
	}
	files, _ := filepath.Glob(filepath.Join(cl.opts.Payloads.(wftemporal.DirStore).Dir, "*", "*"))
	if len(files) < 3 { // the args, the agent's answer, the result
		t.Fatalf("the payload store holds %d files", len(files))
	}
}

func TestEndToEnd_AHistoryCostsAtMostTheMeasuredEventsPerAgent(t *testing.T) {
	cl := newCluster(t)
	cl.worker(fake.New(fake.Options{}))
	cases := []struct {
		name, script string
		agents       int
	}{
		// One agent at a time, each with a timeout (a timer beside its
		// activity, a workflow task per completion): the costly shape.
		{"sequential with timeouts", `export const meta = {name: 'seq', description: 'x'}
for (let i = 0; i < 40; i++) await agent('step ' + i, {timeoutMs: 60000})
return 'ok'`, 40},
		{"fan-out", `export const meta = {name: 'fan', description: 'x'}
return (await parallel(Array.from({length: 120}, (_, i) => () => agent('item ' + i)))).length`, 120},
	}
	for _, c := range cases {
		run, err := cl.client().Start(context.Background(), engine.WorkflowStartRequest{Parent: "e2e", Script: c.script})
		if err != nil {
			t.Fatal(err)
		}
		res, err := run.Wait(context.Background(), nil)
		if err != nil || res.StopReason != engine.StopCompleted || res.AgentsSpawned != c.agents {
			t.Fatalf("%s: %+v %v", c.name, res, err)
		}
		h := history(t, cl.c, run.ID())
		bytes := proto.Size(h)
		perAgent := float64(len(h.GetEvents())) / float64(c.agents)
		t.Logf("%s: %d agents, %d history events (%.2f per agent), %d bytes (%d per agent)",
			c.name, c.agents, len(h.GetEvents()), perAgent, bytes, bytes/c.agents)
		if len(h.GetEvents()) > c.agents*wftemporal.HistoryEventsPerAgent+historyOverhead {
			t.Errorf("%s: %d events for %d agents, more than the %d per agent (and %d for the run) the ceiling assumes",
				c.name, len(h.GetEvents()), c.agents, wftemporal.HistoryEventsPerAgent, historyOverhead)
		}
	}
}

// historyOverhead is what a run's history holds besides its agents: the
// start, the plan's marker, the first and last workflow tasks, the
// search attribute upsert and the completion.
const historyOverhead = 16

func TestEndToEnd_RunsAreListedByTheirSearchAttributes(t *testing.T) {
	cl := newCluster(t)
	cl.worker(fake.New(fake.Options{}))
	c := cl.client()
	owner := "owner-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	run, err := c.Start(context.Background(), engine.WorkflowStartRequest{Parent: owner, Script: `export const meta = {name: 'listed', description: 'x'}
return await agent('x')`})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run.Wait(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		runs, err := c.Runs(context.Background(), owner, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) == 1 && runs[0].RunID == run.ID() && runs[0].Name == "listed" && runs[0].Status == "completed" && runs[0].Parent == owner {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("runs of %s: %+v", owner, runs)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func TestEndToEnd_ARequestAboveTheCeilingIsRefusedBeforeItStarts(t *testing.T) {
	cl := newCluster(t)
	_, err := cl.client().Start(context.Background(), engine.WorkflowStartRequest{Parent: "e2e",
		MaxTotalAgents: wftemporal.MaxAgentsPerRun + 1, Script: `export const meta = {name: 'x', description: 'x'}
return 1`})
	if err == nil || !strings.Contains(err.Error(), "lower maxTotalAgents") {
		t.Fatalf("err %v", err)
	}
}

// history returns the whole history of workflow id.
func history(t *testing.T, c client.Client, id string) *historypb.History {
	t.Helper()
	it := c.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	h := &historypb.History{}
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		h.Events = append(h.Events, ev)
	}
	return h
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// recordEnv, set to 1, makes TestEndToEnd_RecordHistories write the
// histories the replay tests read (testdata/histories).
const recordEnv = "WFRUN_RECORD_HISTORIES"

// recorded are the runs whose histories are checked in: their agents end
// in another order than they started (the delays differ), so a replay that
// took its order from anything but the history would go another way.
var recorded = []struct{ file, script string }{
	{"fanout.json", `export const meta = {name: 'fanout', description: 'a parallel fan-out whose agents end out of order'}
const xs = await parallel(['slow', 'fast', 'medium', 'fast again'].map(x => () => agent('fan ' + x)))
const firstDone = await Promise.race([agent('race slow'), agent('race fast')])
return {xs, firstDone}`},
	{"pipeline.json", `export const meta = {name: 'pipeline', description: 'items through two stages, no barrier between them'}
const order = []
const out = await pipeline(['slow', 'fast', 'medium'],
  async x => { const r = await agent('one ' + x); order.push('one ' + x); return r },
  async (prev, x) => { const r = await agent('two ' + x); order.push('two ' + x); return r + ' <- ' + prev })
return {out, order}`},
}

// recordRules give the recorded runs' agents their different speeds.
var recordRules = &fake.Rules{Rules: []fake.Rule{
	{Match: "fast", DelayMs: 10}, {Match: "medium", DelayMs: 150}, {Match: "slow", DelayMs: 400}, {Match: "^", DelayMs: 50},
}}

func TestEndToEnd_RecordHistories(t *testing.T) {
	if os.Getenv(recordEnv) != "1" {
		t.Skip("set " + recordEnv + "=1 to record testdata/histories")
	}
	cl := newCluster(t)
	cl.worker(fake.New(fake.Options{Rules: recordRules}))
	for _, r := range recorded {
		run, err := cl.client().Start(context.Background(), engine.WorkflowStartRequest{Parent: "record", Script: r.script})
		if err != nil {
			t.Fatal(err)
		}
		res, err := run.Wait(context.Background(), nil)
		if err != nil || res.StopReason != engine.StopCompleted {
			t.Fatalf("%s: %+v %v", r.file, res, err)
		}
		raw, err := protojson.MarshalOptions{Multiline: true, Indent: "  "}.Marshal(history(t, cl.c, run.ID()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("testdata", "histories", r.file), raw, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %s", r.file, res.Value)
	}
}

// ceilingEnv, set to 1, runs TestEndToEnd_ARunAtTheCeilingFitsInOneHistory,
// the measurement behind MaxAgentsPerRun (docs/scale-out.md): a few
// minutes on 2 cores, so not part of every test run.
const ceilingEnv = "WFRUN_TEMPORAL_CEILING"

func TestEndToEnd_ARunAtTheCeilingFitsInOneHistory(t *testing.T) {
	if os.Getenv(ceilingEnv) != "1" {
		t.Skip("set " + ceilingEnv + "=1 to run MaxAgentsPerRun agents through one history")
	}
	cl := newCluster(t)
	n := wftemporal.MaxAgentsPerRun
	cl.worker(fake.New(fake.Options{}), func(c *engine.Config) { c.MaxTotalAgents = n })
	cases := []struct{ name, script string }{
		// Each agent with a timeout and a 3 KiB answer (kept inline), in
		// batches of 16: the costliest shape that is not one agent at a time.
		{"batches with timeouts and 3 KiB answers", fmt.Sprintf(`export const meta = {name: 'ceiling', description: 'x'}
let total = 0
for (let b = 0; b < %d; b += 16) {
  const rs = await parallel(Array.from({length: Math.min(16, %d - b)}, (_, i) => () => agent('item ' + (b + i) + ' ' + 'y'.repeat(3000), {timeoutMs: 600000})))
  total += rs.filter(Boolean).length
}
return total`, n, n)},
		// One agent at a time, each with a timeout: the most events per agent.
		{"one at a time with timeouts", fmt.Sprintf(`export const meta = {name: 'ceiling', description: 'x'}
let total = 0
for (let i = 0; i < %d; i++) if (await agent('step ' + i, {timeoutMs: 600000})) total++
return total`, n)},
	}
	for _, c := range cases {
		start := time.Now()
		run, err := cl.client().Start(context.Background(), engine.WorkflowStartRequest{Parent: "e2e", Script: c.script, MaxTotalAgents: n})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
		res, err := run.Wait(ctx, nil)
		cancel()
		if err != nil || res.StopReason != engine.StopCompleted || string(res.Value) != strconv.Itoa(n) {
			t.Fatalf("%s: %+v %v", c.name, res, err)
		}
		h := history(t, cl.c, run.ID())
		bytes := proto.Size(h)
		t.Logf("%s: %d agents in %s, %d history events (%.2f per agent), %d bytes (%.1f MB, %d per agent)",
			c.name, n, time.Since(start).Round(time.Second), len(h.GetEvents()), float64(len(h.GetEvents()))/float64(n), bytes, float64(bytes)/1e6, bytes/n)
		if len(h.GetEvents()) > 51200*8/10 || bytes > 50<<20*8/10 {
			t.Errorf("%s: the history is past 80%% of Temporal's limits", c.name)
		}
		// A worker that takes the run over replays all of it in one
		// workflow task, which must answer within its minute.
		r, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{DataConverter: wftemporal.NewDataConverter(cl.opts.Payloads)})
		if err != nil {
			t.Fatal(err)
		}
		wftemporal.RegisterReplay(r, wftemporal.Options{})
		replayStart := time.Now()
		if err := r.ReplayWorkflowHistory(discard{}, h); err != nil {
			t.Fatalf("%s: replay: %v", c.name, err)
		}
		t.Logf("%s: the whole history replays in %s", c.name, time.Since(replayStart).Round(time.Millisecond))
	}
}

// stopServer ends a dev server: SIGTERM, then a kill if it has not exited
// within 20 s.
func stopServer(cmd *exec.Cmd) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}
