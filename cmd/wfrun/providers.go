package main

import (
	"context"
	"encoding/json"
	"flag"

	"github.com/wfrun/wfrun/agentapi"
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
	set, err := setup.Providers(context.Background(), setup.Options{Getenv: e.getenv})
	if err != nil {
		return printJSON(e, engine.FailedResult("", err), exitFailed)
	}
	defer set.Close()
	var cfg engine.Config
	set.Apply(&cfg)
	eng, err := engine.New(cfg)
	if err != nil {
		return usageFail(e, "%v", err)
	}
	type entry struct {
		Name         string                `json:"name"`
		Capabilities agentapi.Capabilities `json:"capabilities"`
	}
	out := struct {
		Default   string  `json:"default"`
		Providers []entry `json:"providers"`
	}{Default: set.Default, Providers: []entry{}}
	for _, name := range eng.Providers() {
		p, _ := eng.Provider(name)
		out.Providers = append(out.Providers, entry{Name: name, Capabilities: p.Capabilities()})
	}
	if err := closeEngine(eng); err != nil {
		notice(e, "%v", err)
	}
	return printJSON(e, out, exitCompleted)
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
