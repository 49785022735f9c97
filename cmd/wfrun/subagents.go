package main

import (
	"context"
	"fmt"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/setup"
	"github.com/wfrun/wfrun/engine/subagent"
	"github.com/wfrun/wfrun/engine/tool"
)

// newSubagents returns the manager of eng's continuable sub-agents (wfrun
// mcp, wfrun agent), on the engine's default provider, whose children
// below the depth limit get the sub-agent tools of their own.
func newSubagents(eng *engine.Engine) (*subagent.Manager, error) {
	var m *subagent.Manager
	m, err := subagent.New(eng, subagent.Options{ChildTools: func(c subagent.Caller) agentapi.Toolbox { return tool.ChildTools(m, c) }})
	if err != nil {
		return nil, fmt.Errorf("the sub-agents cannot be kept: %w", err)
	}
	return m, nil
}

// closeSubagents ends the running turns and unloads every child (they are
// ready for the next process); it comes before closeEngine, whose ledger
// the children live in.
func closeSubagents(m *subagent.Manager) error {
	ctx, cancel := context.WithTimeout(context.Background(), setup.CloseTimeout)
	defer cancel()
	if err := m.Close(ctx); err != nil {
		return fmt.Errorf("the sub-agents did not shut down within %s: %w", setup.CloseTimeout, err)
	}
	return nil
}
