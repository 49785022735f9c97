package main

import (
	"context"
	"encoding/json"
	"flag"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/setup"
)

// providersCmd prints the providers the environment configures and
// their capabilities.
func providersCmd(*flag.FlagSet) runFunc { return listProviders }

func listProviders(e env, args []string) int {
	if len(args) > 0 {
		return usageFail(e, "providers takes no arguments; got %q", args[0])
	}
	def, list, err := setup.ListProviders(context.Background(), setup.Options{Getenv: e.getenv})
	if list == nil {
		return printJSON(e, engine.FailedResult("", err), exitFailed)
	}
	if err != nil {
		notice(e, "%v", err)
	}
	return printJSON(e, struct {
		Default   string               `json:"default"`
		Providers []setup.ProviderInfo `json:"providers"`
	}{def, list}, exitCompleted)
}

// printJSON writes v, indented, on stdout and returns code.
func printJSON(e env, v any, code int) int {
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		notice(e, "cannot write the result: %v", err)
		if code == exitCompleted {
			return exitFailed
		}
	}
	return code
}
