package engine_test

import (
	"context"
	"fmt"

	"github.com/wfrun/wfrun/engine"
)

// A zero Config gives an engine whose provider is the offline "fake": a
// text call answers with its prompt, which makes the example deterministic.
func ExampleEngine_Start() {
	eng, err := engine.New(engine.Config{})
	if err != nil {
		panic(err)
	}
	defer eng.Close(context.Background())

	script := `export const meta = { name: 'greet', description: 'Ask two agents, join the answers' }
const [a, b] = await Promise.all([agent('hello from ' + args.who), agent('second opinion')])
return { a, b }`

	run, err := eng.Start(context.Background(), engine.WorkflowStartRequest{
		Script: script,
		Args:   []byte(`{"who":"the example"}`),
		Parent: "example",
	})
	if err != nil {
		fmt.Println(engine.FailedResult("", err).Error)
		return
	}
	res := run.Wait()
	fmt.Println(res.StopReason, res.AgentsSpawned, string(res.Value))
	// Output: completed 2 {"a":"hello from the example","b":"second opinion"}
}

// A failed pre-check is an error from Start that also renders as a result.
func ExampleFailedResult() {
	eng, _ := engine.New(engine.Config{})
	defer eng.Close(context.Background())
	_, err := eng.Start(context.Background(), engine.WorkflowStartRequest{
		Script: "export const meta = { name: 'x', description: 'y' }\nconst n: number = 1",
		Parent: "example",
	})
	res := engine.FailedResult("", err)
	fmt.Println(res.StopReason, res.ErrorCode, res.ErrorLine)
	// Output: error SCRIPT_PARSE 2
}
