package tool_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/tool"
)

// The plain-Go pair: show a model the definition, run what it sends back.
// The engine's zero Config runs every agent on the offline fake provider,
// which answers a text prompt with the prompt itself.
func ExampleTool_Call() {
	eng, err := engine.New(engine.Config{})
	if err != nil {
		panic(err)
	}
	defer eng.Close(context.Background())

	wf, _ := tool.New(eng, tool.Options{Owner: "my-agent"}).Tool(tool.Workflow)
	def := wf.Definition()
	fmt.Println(def.Name, len(def.Description) > 0, json.Valid(def.InputSchema))

	// What a model would send: a script and its args.
	res := wf.Call(context.Background(), json.RawMessage(`{
		"script": "export const meta = { name: 'echo', description: 'one agent' }\nreturn { said: await agent(args.say) }",
		"args": {"say": "hello"}
	}`))
	fmt.Println(res.IsError)
	fmt.Println(regexp.MustCompile(`[0-9.]+ s\)`).ReplaceAllString(res.Text, "D s)"))
	// Output:
	// workflow true true
	// false
	// workflow "echo" completed (1 agent, 4 tokens, D s)
	// {
	//   "said": "hello"
	// }
}

// The go-openai adapter: offer the tools in a chat completion request, and
// answer each tool call the model makes with the tool message.
func ExampleSet_HandleOpenAI() {
	eng, err := engine.New(engine.Config{})
	if err != nil {
		panic(err)
	}
	defer eng.Close(context.Background())
	tools := tool.New(eng, tool.Options{Owner: "my-agent"})

	req := goopenai.ChatCompletionRequest{Model: "gpt-4o-mini", Tools: tools.OpenAITools(tool.Workflow, tool.Agent)}
	fmt.Println(len(req.Tools), req.Tools[0].Function.Name)

	// A tool call as it would come back in the model's reply.
	call := goopenai.ToolCall{ID: "call_1", Type: goopenai.ToolTypeFunction, Function: goopenai.FunctionCall{
		Name: "agent", Arguments: `{"prompt": "Say hi"}`,
	}}
	msg := tools.HandleOpenAI(context.Background(), call)
	fmt.Println(msg.Role, msg.ToolCallID, msg.Content)
	// Output:
	// 2 workflow
	// tool call_1 Say hi
}
