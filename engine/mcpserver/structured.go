package mcpserver

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Some clients show the model a tool's structuredContent instead of its
// text (Claude Code on success, Codex always), and Codex drops isError.
// So the structured content of every tool opens with what the text says
// first: whether the call failed and the text's first line; a failed call
// carries its whole text (the error's sentence, the excerpt at its line,
// what to do next), which a model reading only the JSON would otherwise
// never see. The tool's own object follows, field for field.

// outputSchema is every tool's declared outputSchema: the opening fields,
// and whatever the tool's object adds.
var outputSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"isError":{"type":"boolean","description":"true when the call did not do what it was asked"},` +
	`"summary":{"type":"string","description":"the first line of the tool's text"},` +
	`"errorText":{"type":"string","description":"a failed call's whole text: what went wrong, where, and what to do instead"}` +
	`},"required":["isError","summary"]}`)

// structured is a tool's structured content with the opening fields.
type structured struct {
	IsError   bool   `json:"isError"`
	Summary   string `json:"summary"`
	ErrorText string `json:"errorText,omitempty"`
	inner     any    // the tool's own object, or nil
}

// newStructured opens inner with what text and isError say.
func newStructured(text string, isError bool, inner any) structured {
	s := structured{IsError: isError, Summary: text, inner: inner}
	if first, _, ok := strings.Cut(text, "\n"); ok {
		s.Summary = first
	}
	if isError {
		s.ErrorText = text
	}
	return s
}

// MarshalJSON writes the opening fields, then inner's fields; an inner
// value that is not a JSON object (or marshals to nothing) adds nothing.
func (s structured) MarshalJSON() ([]byte, error) {
	type header structured // no MarshalJSON: the plain encoding
	head, err := json.Marshal(header(s))
	if err != nil {
		return nil, err
	}
	if s.inner == nil {
		return head, nil
	}
	body, err := json.Marshal(s.inner)
	if err != nil {
		return nil, err
	}
	body = bytes.TrimSpace(body)
	if len(body) < 2 || body[0] != '{' || string(body) == "{}" {
		return head, nil
	}
	out := make([]byte, 0, len(head)+len(body))
	out = append(out, head[:len(head)-1]...)
	out = append(out, ',')
	return append(out, body[1:]...), nil
}
