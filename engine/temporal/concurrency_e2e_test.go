package temporal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/engine"
	wftemporal "github.com/wfrun/wfrun/engine/temporal"
)

// gauge is a provider that records how many of its calls ran at once.
type gauge struct {
	agentapi.Provider
	mu            sync.Mutex
	running, peak int
}

func (g *gauge) Run(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
	g.mu.Lock()
	g.running++
	g.peak = max(g.peak, g.running)
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.running--
		g.mu.Unlock()
	}()
	return g.Provider.Run(ctx, req)
}

func TestEndToEnd_AWorkerRunsAtMostMaxConcurrentAgentsAtOnce(t *testing.T) {
	cl := newCluster(t)
	cl.opts.MaxConcurrentAgents = 2
	g := &gauge{Provider: fake.New(fake.Options{Rules: &fake.Rules{Rules: []fake.Rule{{Match: "^", DelayMs: 300}}}})}
	cl.worker(g)
	// Two runs of six parallel agents each: twelve agents the run's own
	// concurrency would all let start at once.
	script := `export const meta = {name: 'slots', description: 'six agents at once'}
return await parallel([1, 2, 3, 4, 5, 6].map(n => () => agent('slot ' + n + ' of ' + args.run)))`
	c := cl.client()
	var runs []*wftemporal.Run
	for i := range 2 {
		run, err := c.Start(context.Background(), engine.WorkflowStartRequest{Script: script, Args: json.RawMessage(fmt.Sprintf(`{"run":%d}`, i)), Parent: "e2e", Concurrency: 6})
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for _, run := range runs {
		res, err := run.Wait(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.StopReason != engine.StopCompleted || res.Agents.Completed != 6 {
			t.Fatalf("result %+v", res)
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	t.Logf("at most %d agents ran at once", g.peak)
	if g.peak > 2 {
		t.Fatalf("%d agents ran at once on a worker with MaxConcurrentAgents 2", g.peak)
	}
}
