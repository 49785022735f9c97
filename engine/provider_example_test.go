package engine_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine"
)

// upper is a complete provider: every child answers with its prompt in
// capital letters. It declares no capabilities, so a script that passes
// schema, model, tools, … to agent() is refused with UNSUPPORTED_OPTION
// before the provider sees the request.
type upper struct{}

func (upper) Name() string                        { return "upper" }
func (upper) Capabilities() agentapi.Capabilities { return agentapi.Capabilities{} }

func (upper) Run(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
	switch err := ctx.Err(); {
	case errors.Is(err, context.DeadlineExceeded):
		return agentapi.Result{Status: agentapi.StatusTimedOut, Failure: agentapi.FailureTimeout, Error: "the agent's deadline passed"}, nil
	case err != nil:
		return agentapi.Result{Status: agentapi.StatusCancelled, Failure: agentapi.FailureCancelled, Error: "the run was cancelled"}, nil
	}
	answer := strings.ToUpper(req.Prompt)
	return agentapi.Result{
		Status: agentapi.StatusCompleted,
		Text:   answer,
		Usage:  agentapi.Usage{InputTokens: int64(len(req.Prompt)), OutputTokens: int64(len(answer))},
	}, nil
}

// A provider of your own: implement agentapi.Provider, register it in
// Config.Providers and make it the default (or name it in a request's
// SubagentProvider).
func Example_customProvider() {
	eng, err := engine.New(engine.Config{
		Providers:       []agentapi.Provider{upper{}},
		DefaultProvider: "upper",
	})
	if err != nil {
		panic(err)
	}
	defer eng.Close(context.Background())

	res := eng.Run(context.Background(), engine.WorkflowStartRequest{
		Script: `export const meta = { name: 'shout', description: 'Two agents answer in capitals' }
const [a, b] = await Promise.all([agent('hello'), agent('custom provider')])
return { a, b }`,
		Parent: "example",
	})
	fmt.Println(res.StopReason, string(res.Value), res.Usage.InputTokens, res.Usage.OutputTokens)

	// An option the provider has no capability for is refused up front.
	check := eng.Check(engine.WorkflowStartRequest{
		Script: `export const meta = { name: 'typed', description: 'Asks for structured output' }
return await agent('list three colours', { schema: { type: 'object' } })`,
		Parent: "example",
	})
	fmt.Println(check.ErrorCode, check.Error)
	// Output:
	// completed {"a":"HELLO","b":"CUSTOM PROVIDER"} 20 20
	// UNSUPPORTED_OPTION the "upper" provider cannot honour schema; remove that option or choose a provider that supports it
}
