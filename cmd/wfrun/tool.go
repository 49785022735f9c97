package main

import (
	"flag"

	"github.com/wfrun/wfrun/agentapi/persona"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/setup"
	"github.com/wfrun/wfrun/engine/tool"
)

// toolCmd is `wfrun tool`: the tool definitions (name, description,
// input schema) as JSON, for hosts that register them by hand.
func toolCmd(*flag.FlagSet) runFunc { return toolDefinitions }

func toolDefinitions(e env, args []string) int {
	if len(args) > 0 {
		return usageFail(e, "tool takes no arguments; it prints the tool definitions. Got %q", args[0])
	}
	// The personas and saved workflows a wfrun mcp started here without
	// flags would offer.
	cfg, err := setup.Local("", e.getenv("HOME"))
	if err != nil {
		return usageFail(e, "%v", err)
	}
	eng, err := engine.New(cfg)
	if err != nil {
		return usageFail(e, "%v", err)
	}
	defs := tool.AllDefinitions(eng, toolPersonas(cfg.Personas))
	if err := setup.CloseEngine(eng); err != nil {
		notice(e, "%v", err)
	}
	return printJSON(e, defs, exitCompleted)
}

// toolPersonas lists the personas for the tools' descriptions: the names a
// script's agentType may use, with their one-line descriptions.
func toolPersonas(set *persona.Set) []tool.Persona { return tool.PersonasOf(set) }
