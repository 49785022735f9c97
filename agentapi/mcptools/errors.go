package mcptools

import (
	"errors"
	"fmt"
	"strings"
)

// ErrClosed is returned by Tools and Call after Close.
var ErrClosed = errors.New("the MCP toolbox is closed; no MCP tools can be used any more")

// ErrUnknownTool is wrapped by the error Call returns for a name that is not
// one of Tools.
var ErrUnknownTool = errors.New("unknown tool")

// ServerError is a server that could not be started, listed or reached.
type ServerError struct {
	Server string
	Op     string // what failed: "start", "list tools", "call TOOL"
	Stderr string // the end of a stdio server's stderr, if it wrote any
	Err    error
}

func (e *ServerError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "MCP server %q: %s: %v", e.Server, e.Op, e.Err)
	if e.Stderr != "" {
		fmt.Fprintf(&b, "; its stderr ends with: %s", e.Stderr)
	}
	return b.String()
}

func (e *ServerError) Unwrap() error { return e.Err }

// ToolError is a tool that ran and reported failure (an MCP result with
// isError set). Its message is the tool's own text, which is what the model
// should see.
type ToolError struct {
	Tool    string // the name the model used
	Message string
}

func (e *ToolError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("tool %s reported an error without a message", e.Tool)
	}
	return e.Message
}
