package command_test

import (
	"context"
	"fmt"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/command"
)

func ExampleNew() {
	ctx := context.Background()

	// The prompt on stdin, the answer on stdout.
	upper, err := command.New(command.Spec{Name: "upper", Argv: []string{"/bin/sh", "-c", "tr a-z A-Z"}})
	if err != nil {
		panic(err)
	}
	res, _ := upper.Run(ctx, agentapi.Request{Prompt: "shout this"})
	fmt.Println(upper.Name(), res.Status, res.Text)

	// The prompt as an argument.
	echo, err := command.New(command.Spec{Argv: []string{"/bin/echo", "you said:", "{prompt}"}, PromptVia: command.PromptViaArg})
	if err != nil {
		panic(err)
	}
	res, _ = echo.Run(ctx, agentapi.Request{Prompt: "hello; rm -rf /"})
	fmt.Println(echo.Name(), res.Status, res.Text)

	// A JSON answer in a field of the command's JSON output, checked
	// against the call's schema.
	spec, err := command.Parse([]byte(`{
		"name": "oracle",
		"argv": ["/bin/sh", "-c", "cat >/dev/null; echo '{\"result\": \"{\\\"answer\\\": 42}\", \"usage\": {\"in\": 900, \"out\": 12}}'"],
		"output": {"format": "json", "field": "result", "usageFields": {"inputTokens": "usage.in", "outputTokens": "usage.out"}},
		"capabilities": {"outputSchema": true}
	}`))
	if err != nil {
		panic(err)
	}
	oracle, err := command.New(spec)
	if err != nil {
		panic(err)
	}
	res, _ = oracle.Run(ctx, agentapi.Request{
		Prompt: "What is six times seven?",
		Schema: []byte(`{"type":"object","properties":{"answer":{"type":"integer"}},"required":["answer"]}`),
	})
	fmt.Println(oracle.Name(), res.Status, string(res.Output), res.Usage.InputTokens, res.Usage.OutputTokens)
	// Output:
	// upper completed SHOUT THIS
	// command completed you said: hello; rm -rf /
	// oracle completed {"answer":42} 900 12
}
