package tool

import (
	"github.com/wfrun/wfrun/agentapi/persona"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/internal/human"
)

// PersonasOf lists the personas of set for the tools' descriptions: the
// names a script's agentType may use, each with the first line of its
// description (at most 200 characters).
func PersonasOf(set *persona.Set) []Persona {
	var out []Persona
	for _, p := range set.Personas() {
		out = append(out, Persona{Name: p.Name, Description: human.FirstLine(p.Description, 200)})
	}
	return out
}

// AllDefinitions is every tool an MCP server of eng serves (wfrun mcp,
// mcpserver with Options.Subagents), for hosts that register them by
// hand: the tools of New with personas, then the continuable sub-agent
// tools (SubagentDefinitions), whose definitions need no ledger.
func AllDefinitions(eng *engine.Engine, personas []Persona) []Definition {
	return append(New(eng, Options{Personas: personas}).Definitions(), SubagentDefinitions()...)
}
