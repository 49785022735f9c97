package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"
	"golang.org/x/sync/errgroup"

	"github.com/wfrun/wfrun/agentapi"
)

// finalAnswerTool is the tool a schema call in SchemaTool mode answers
// with. It hides a toolbox tool of the same name.
const finalAnswerTool = "final_answer"

// emptyObjectSchema is the parameters of a tool that declares none.
var emptyObjectSchema = json.RawMessage(`{"type":"object","properties":{}}`)

// toolSources are the toolboxes a child's tools come from, in order: a
// tool name the first has hides the same name in later ones. The child's
// built-in tools come first, then the host's tools for a continued child
// (ConversationRequest.Tools), then Config.Toolbox (MCP servers).
func (c *conversation) toolSources() []agentapi.Toolbox {
	var boxes []agentapi.Toolbox
	if c.builtin != nil {
		boxes = append(boxes, c.builtin)
	}
	if c.extra != nil {
		boxes = append(boxes, c.extra)
	}
	if c.p.cfg.Toolbox != nil {
		boxes = append(boxes, c.p.cfg.Toolbox)
	}
	return boxes
}

// toolDefs renders tools for the API.
func toolDefs(tools []agentapi.Tool) []goopenai.Tool {
	defs := make([]goopenai.Tool, 0, len(tools))
	for _, t := range tools {
		params := t.InputSchema
		if len(params) == 0 {
			params = emptyObjectSchema
		}
		defs = append(defs, goopenai.Tool{Type: goopenai.ToolTypeFunction, Function: &goopenai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: params,
		}})
	}
	return defs
}

// toolOutcome is one tool call's result as the model will see it.
type toolOutcome struct {
	call    goopenai.ToolCall
	content string
	failed  bool
}

// runTools runs calls concurrently and returns their outcomes in call
// order. A failing tool is an outcome, never an error. It returns when
// every call has returned; the calls get ctx and should stop when it ends.
func (c *conversation) runTools(ctx context.Context, calls []goopenai.ToolCall) []toolOutcome {
	out := make([]toolOutcome, len(calls))
	var g errgroup.Group
	for i, call := range calls {
		g.Go(func() error {
			tctx, span := toolSpan(ctx, call)
			content, err := c.callTool(tctx, call)
			endToolSpan(tctx, span, err)
			out[i] = toolOutcome{call: call, content: content}
			if err != nil {
				out[i].content, out[i].failed = "error: "+err.Error(), true
			}
			if out[i].content == "" {
				out[i].content = "(no output)"
			}
			return nil
		})
	}
	_ = g.Wait() // the goroutines never return an error
	return out
}

// callTool runs one tool call, refusing names the child was not given.
func (c *conversation) callTool(ctx context.Context, call goopenai.ToolCall) (string, error) {
	name := call.Function.Name
	box := c.allowed[name]
	if box == nil {
		return "", fmt.Errorf("the tool %q is not available to this agent; available tools: %s", name, c.toolList())
	}
	args := strings.TrimSpace(call.Function.Arguments)
	if args == "" {
		args = "{}"
	}
	if !json.Valid([]byte(args)) {
		return "", fmt.Errorf("the arguments of %s are not valid JSON; call it again with a JSON object", name)
	}
	return box.Call(ctx, name, json.RawMessage(args))
}

func (c *conversation) toolList() string {
	if len(c.allowed) == 0 {
		return "none"
	}
	names := make([]string, 0, len(c.allowed))
	for n := range c.allowed {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
