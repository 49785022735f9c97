package temporal_test

import (
	"bufio"
	"context"
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

	"go.temporal.io/sdk/client"
	"go.uber.org/goleak"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/engine"
	wftemporal "github.com/wfrun/wfrun/engine/temporal"
	"github.com/wfrun/wfrun/internal/eventcheck"
	"github.com/wfrun/wfrun/internal/leaktest"
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
	return func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
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
	if server.hostPort == "" {
		t.Skip(server.skip)
	}
	opts := wftemporal.Options{
		TaskQueue:        "q-" + strings.ReplaceAll(t.Name(), "/", "-"),
		Payloads:         wftemporal.DirStore{Dir: t.TempDir()},
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
func (cl *cluster) worker(p agentapi.Provider) (stop func()) {
	cl.t.Helper()
	eng, err := engine.New(engine.Config{Providers: []agentapi.Provider{p}, DefaultProvider: p.Name()})
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
// items through two stages: seventeen agents, each 300 ms at the fake.
const twelve = `export const meta = {name: 'e2e', description: 'a fan-out and a pipeline'}
const xs = await parallel([1, 2, 3, 4, 5, 6, 7, 8].map(n => () => agent('fan ' + n)))
phase('pipe')
const ys = await pipeline(['a', 'b', 'c'], x => agent('first ' + x), (prev, x) => agent('second ' + prev))
log('done', xs.length, ys.length)
return {xs, ys}`

func TestEndToEnd_AWorkerStoppedMidRunIsReplacedAndNoFinishedAgentRunsTwice(t *testing.T) {
	cl := newCluster(t)
	p := newCounting(300)
	stop1 := cl.worker(p)
	req := engine.WorkflowStartRequest{Script: twelve, Parent: "e2e", Concurrency: 3}
	run, err := cl.client().Start(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, finished := p.total(); finished >= 5 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first worker finished fewer than 5 agents in 30 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop1()
	_, finishedBefore := p.total()
	cl.worker(p)

	var rec eventcheck.Recorder
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := run.Wait(ctx, rec.Record)
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != engine.StopCompleted || res.AgentsSpawned != 14 || res.Agents.Completed != 14 {
		t.Fatalf("result %+v", res)
	}
	if finishedBefore >= 14 {
		t.Fatalf("the first worker finished all %d agents before it was stopped; the test did not stop it mid-run", finishedBefore)
	}
	started, _ := p.total()
	t.Logf("the first worker finished %d of 14 agents before it stopped; %d provider calls in all", finishedBefore, started)
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
