package main

import (
	"context"
	"encoding/json"
	"flag"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/modelmap"
	"github.com/wfrun/wfrun/agentapi/openai"
	"github.com/wfrun/wfrun/agentapi/persona"
	"github.com/wfrun/wfrun/agentapi/workspace"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/setup"
)

// providerFlags are the command-line settings of the real providers.
type providerFlags struct {
	model       string   // --model: also the openai provider's default model
	baseURL     string   // --base-url
	mcpConfig   string   // --mcp-config
	commandSpec string   // --command-spec
	acpAgents   []string // --acp-agent NAME=CMD ARGS…, repeatable
	acpConfig   string   // --acp-config
	transcripts string   // --transcripts
	prices      string   // --prices

	personas  *persona.Set     // --agents-dir and the usual folders
	models    *modelmap.Map    // --model-map; nil without it
	workspace workspace.Config // --workspace, --sandbox, --sandbox-network, --sandbox-hide, --sandbox-landlock-only
}

// options are the setup package's Options of these flags, for a request
// that names the provider wants ("" none).
func (pf providerFlags) options(getenv func(string) string, wants string, withTools bool) setup.Options {
	return setup.Options{Provider: wants, Model: pf.model, BaseURL: pf.baseURL,
		MCPConfig: pf.mcpConfig, WithTools: withTools, CommandSpec: pf.commandSpec,
		ACPAgents: pf.acpAgents, ACPConfig: pf.acpConfig, Transcripts: pf.transcripts,
		Prices: pf.prices, Personas: pf.personas, Models: pf.models,
		Workspace: pf.workspace, Getenv: getenv}
}

// providerSet builds the providers this command line configures besides
// the engine's built-in fake (setup.Providers); close stops what they
// started (MCP servers).
func providerSet(ctx context.Context, pf providerFlags, getenv func(string) string, wants string, withTools bool) (ps []agentapi.Provider, close func(), err error) {
	set, err := setup.Providers(ctx, pf.options(getenv, wants, withTools))
	if err != nil {
		return nil, func() {}, err
	}
	return set.Providers, set.Close, nil
}

// openaiConfig is the openai provider's configuration from the
// environment and the flags, without tools.
func openaiConfig(pf providerFlags, getenv func(string) string) (openai.Config, error) {
	return setup.OpenAIConfig(pf.options(getenv, "", false))
}

// defaultProvider picks the provider of a run that names none
// (setup.DefaultProvider).
func defaultProvider(providers []agentapi.Provider) (name, notice string) {
	return setup.DefaultProvider(providers)
}

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
