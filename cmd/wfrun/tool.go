package main

import (
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/tool"
)

// toolCommand is `wfrun tool`: the tool definitions (name, description,
// input schema) as JSON, for hosts that register them by hand.
func toolCommand(args []string, e env) int {
	for _, a := range args {
		if a == "-h" || a == "--help" || a == "-help" {
			return help(e)
		}
	}
	if len(args) > 0 {
		return usageFail(e, "tool takes no arguments; it prints the tool definitions. Got %q", args[0])
	}
	eng, err := engine.New(engine.Config{})
	if err != nil {
		return usageFail(e, "%v", err)
	}
	defs := tool.New(eng, tool.Options{}).Definitions()
	if err := closeEngine(eng); err != nil {
		notice(e, "%v", err)
	}
	return printJSON(e, defs, exitCompleted)
}
