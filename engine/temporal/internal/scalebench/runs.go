package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/wfrun/wfrun/engine"
	wftemporal "github.com/wfrun/wfrun/engine/temporal"
)

// agentsPerRun is how many agents the script asks at once.
const agentsPerRun = 4

// script asks four agents at once, each with a prompt of its own (the
// run's tag and the agent's number), and returns how many answered.
const script = `export const meta = {name: 'scalebench', description: 'four agents at once'}
const answers = await Promise.all([1, 2, 3, 4].map(n => agent(args.tag + ' agent ' + n)))
return answers.length`

// startRuns starts n runs tagged prefix-0 … prefix-(n-1), a few at a time,
// and returns them in that order.
func startRuns(ctx context.Context, c *wftemporal.Client, prefix string, n int) ([]*wftemporal.Run, error) {
	runs := make([]*wftemporal.Run, n)
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				args, _ := json.Marshal(map[string]string{"tag": fmt.Sprintf("%s-%d", prefix, i)})
				runs[i], errs[i] = c.Start(ctx, engine.WorkflowStartRequest{Script: script, Args: args, Parent: "scalebench", Concurrency: agentsPerRun})
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("run %d did not start: %w", i, err)
		}
	}
	return runs, nil
}

// waitRuns waits for every run and checks that each completed with its
// four agents answered.
func waitRuns(ctx context.Context, runs []*wftemporal.Run) error {
	errs := make([]error, len(runs))
	var wg sync.WaitGroup
	for i, run := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := run.Wait(ctx, nil)
			switch {
			case err != nil:
				errs[i] = err
			case res.StopReason != engine.StopCompleted || res.Agents.Completed != agentsPerRun:
				errs[i] = fmt.Errorf("run %s ended %s with %d of %d agents completed: %+v", run.ID(), res.StopReason, res.Agents.Completed, agentsPerRun, res.Error)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
