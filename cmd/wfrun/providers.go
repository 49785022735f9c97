package main

import (
	"encoding/json"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine"
)

// providerSet is the providers this build registers besides the engine's
// built-in fake. A real provider is added here when its package lands
// (agentapi/openai is a later issue).
func providerSet(getenv func(string) string) []agentapi.Provider {
	return nil
}

// wantsOpenAI reports whether the environment asks for the openai provider.
func wantsOpenAI(getenv func(string) string) bool {
	return getenv("OPENAI_API_KEY") != "" || getenv("OPENAI_BASE_URL") != ""
}

// defaultProvider picks the provider of a run that names none: openai when
// the environment configures it and this build has it, else fake. The
// notice, when not empty, tells the person at the shell which one and why.
func defaultProvider(getenv func(string) string, providers []agentapi.Provider) (name, notice string) {
	if wantsOpenAI(getenv) {
		for _, p := range providers {
			if p.Name() == "openai" {
				return "openai", ""
			}
		}
		return engine.DefaultProvider, "OPENAI_API_KEY or OPENAI_BASE_URL is set, but this build has no openai provider yet; using the offline fake provider (pass --provider to choose one)"
	}
	return engine.DefaultProvider, "no provider configured; using the offline fake provider (set OPENAI_API_KEY or pass --provider)"
}

// providersCommand prints the registered providers and their capabilities.
func providersCommand(args []string, e env) int {
	for _, a := range args {
		if a == "-h" || a == "--help" || a == "-help" {
			return help(e)
		}
	}
	if len(args) > 0 {
		return usageFail(e, "providers takes no arguments; got %q", args[0])
	}
	providers := providerSet(e.getenv)
	def, _ := defaultProvider(e.getenv, providers)
	eng, err := engine.New(engine.Config{Providers: providers, DefaultProvider: def})
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
	}{Default: def, Providers: []entry{}}
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
