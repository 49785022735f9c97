package openai

import (
	"encoding/json"
	"slices"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"
)

// A model can emit a tool call whose arguments are not JSON (cut off at its
// output limit, or simply malformed: `{"file_path"`). The call itself is
// answered with a tool error that says so (callTool), but the history must
// not carry the broken text back: servers that parse the history's tool
// calls (llama.cpp's llama-server among them) answer such a request with a
// 500 on every retry, and the child dies of an upstream error it caused
// itself. So the history keeps the call with its arguments replaced by an
// empty object, next to the error reply that explains what was wrong; the
// transcript keeps what the model really said.

// mendedArguments stands in for arguments that are not a JSON object.
const mendedArguments = "{}"

// A model can also answer with nothing at all: no text and no tool call.
// go-openai leaves the empty content out, so the history would carry an
// assistant message with neither, which llama-server refuses with a 400
// ("Assistant message must contain either 'content' or 'tool_calls'!"):
// the child would fail on the turn that asks it to try again. The history
// says so instead.

// emptyAnswer stands in for an assistant message with no content and no
// tool calls.
const emptyAnswer = "(no answer)"

// mendMessage is m as the history carries it: its malformed tool calls
// mended, and an empty assistant answer given emptyAnswer as its text.
func mendMessage(m goopenai.ChatCompletionMessage) goopenai.ChatCompletionMessage {
	m = mendToolCalls(m)
	if m.Role == goopenai.ChatMessageRoleAssistant && m.Content == "" && len(m.MultiContent) == 0 &&
		len(m.ToolCalls) == 0 && m.FunctionCall == nil {
		m.Content = emptyAnswer
	}
	return m
}

// mendToolCalls returns m with every tool call's arguments that are not a
// JSON object replaced by mendedArguments. m is returned as is when nothing
// needs mending; otherwise its ToolCalls are a new slice, so the caller's
// message is not changed.
func mendToolCalls(m goopenai.ChatCompletionMessage) goopenai.ChatCompletionMessage {
	if !slices.ContainsFunc(m.ToolCalls, brokenCall) {
		return m
	}
	m.ToolCalls = slices.Clone(m.ToolCalls)
	for i := range m.ToolCalls {
		if brokenCall(m.ToolCalls[i]) {
			m.ToolCalls[i].Function.Arguments = mendedArguments
		}
	}
	return m
}

// mendHistory mends every message of a history read back from storage,
// which an older wfrun may have saved with the broken arguments in it.
func mendHistory(msgs []goopenai.ChatCompletionMessage) []goopenai.ChatCompletionMessage {
	for i := range msgs {
		msgs[i] = mendMessage(msgs[i])
	}
	return msgs
}

// brokenCall reports whether a call's arguments would not parse as a JSON
// object (empty arguments are mended too: some servers refuse "").
func brokenCall(call goopenai.ToolCall) bool {
	args := strings.TrimSpace(call.Function.Arguments)
	if args == "" {
		return true
	}
	var obj map[string]json.RawMessage
	return json.Unmarshal([]byte(args), &obj) != nil
}
