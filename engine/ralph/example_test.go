package ralph_test

import (
	"context"
	"fmt"

	"github.com/wfrun/wfrun/agentapi/fake"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/ralph"
)

// A loop whose second round completes the objective. The fake provider
// stands in for a real one; its rules answer each round with a handoff.
func ExampleRun() {
	rules, _ := fake.Parse([]byte(`{"rules":[
	  {"match":"^You are round 1 of","reply":{"status":"continue","summary":"drafted the README","evidence":[],"nextSteps":["add the examples"]}},
	  {"match":"^You are round 2 of","reply":{"status":"complete","summary":"added the examples","evidence":["README.md has three runnable examples"],"nextSteps":[]}}
	]}`))
	eng, _ := engine.New(engine.Config{FakeRules: rules})
	defer eng.Close(context.Background())

	res, err := ralph.Run(context.Background(), eng, ralph.Options{Objective: "Write the README with runnable examples"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Ending, "after", res.Rounds, "rounds:", res.Handoff.Summary)
	// Output: complete after 2 rounds: added the examples
}
