package agentapi

import (
	"context"
	"encoding/json"
)

// Tool describes one tool a child may call, as the model sees it.
type Tool struct {
	// Name is what the model calls: for MCP tools "mcp__SERVER__TOOL",
	// sanitised to the characters model APIs accept ([A-Za-z0-9_-], ≤ 64).
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"` // a JSON Schema object for the arguments
}

// Toolbox is a set of tools shared by the children of an engine (for
// example every tool of the MCP servers in a config file). It is safe for
// concurrent use.
type Toolbox interface {
	// Tools lists the tools. Implementations fetch them once and cache them.
	Tools(ctx context.Context) ([]Tool, error)
	// Call runs a tool with JSON arguments and returns its result as text.
	// An error is a tool failure: the caller shows it to the model as the
	// tool's result, it never ends the child.
	Call(ctx context.Context, name string, args json.RawMessage) (string, error)
}
