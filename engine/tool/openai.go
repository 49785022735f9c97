package tool

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/wfrun/wfrun/agentapi"
)

// OpenAITools returns the tools called names (every tool when names is
// empty) as go-openai tool definitions, for a chat completion request.
func (s *Set) OpenAITools(names ...Name) []goopenai.Tool {
	var out []goopenai.Tool
	for _, t := range s.pick(names) {
		out = append(out, goopenai.Tool{Type: goopenai.ToolTypeFunction, Function: &goopenai.FunctionDefinition{
			Name: string(t.def.Name), Description: t.def.Description, Parameters: t.def.InputSchema,
		}})
	}
	return out
}

// HandleOpenAI executes a tool call a chat completion returned and
// returns the tool message that answers it. A failed call is an ordinary
// tool message whose content says what went wrong: the model reads it and
// can try again.
func (s *Set) HandleOpenAI(ctx context.Context, call goopenai.ToolCall) goopenai.ChatCompletionMessage {
	args := strings.TrimSpace(call.Function.Arguments)
	if args == "" {
		args = "{}"
	}
	res := s.Call(ctx, Name(call.Function.Name), json.RawMessage(args))
	return goopenai.ChatCompletionMessage{
		Role: goopenai.ChatMessageRoleTool, ToolCallID: call.ID, Name: call.Function.Name, Content: res.Text,
	}
}

// pick returns the tools called names, in the set's order; all of them
// when names is empty.
func (s *Set) pick(names []Name) []*Tool {
	if len(names) == 0 {
		return s.Tools()
	}
	var out []*Tool
	for _, t := range s.tools {
		for _, n := range names {
			if t.def.Name == n {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

// Toolbox returns the tools called names (every tool when names is empty)
// as an agentapi.Toolbox, so that a provider's agent loop (the openai
// provider's, for wfrun agent) can offer them to a parent model. A call
// whose Result is an error returns that text as the error, which the loop
// shows to the model as the tool's result.
func (s *Set) Toolbox(names ...Name) agentapi.Toolbox {
	return toolbox{s: s, tools: s.pick(names)}
}

type toolbox struct {
	s     *Set
	tools []*Tool
}

func (b toolbox) Tools(context.Context) ([]agentapi.Tool, error) {
	out := make([]agentapi.Tool, len(b.tools))
	for i, t := range b.tools {
		out[i] = agentapi.Tool{Name: string(t.def.Name), Description: t.def.Description, InputSchema: t.def.InputSchema}
	}
	return out, nil
}

func (b toolbox) Call(ctx context.Context, name string, args json.RawMessage) (string, error) {
	for _, t := range b.tools {
		if string(t.def.Name) == name {
			res := t.Call(ctx, args)
			if res.IsError {
				return "", errors.New(res.Text)
			}
			return res.Text, nil
		}
	}
	return "", errors.New("there is no tool " + name + " in this toolbox")
}
