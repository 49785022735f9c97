package main

import (
	"context"
	"encoding/json"
	"flag"
	"slices"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/acp"
	commandprovider "github.com/wfrun/wfrun/agentapi/command"
	"github.com/wfrun/wfrun/agentapi/mcptools"
	"github.com/wfrun/wfrun/agentapi/modelmap"
	"github.com/wfrun/wfrun/agentapi/openai"
	"github.com/wfrun/wfrun/agentapi/persona"
	"github.com/wfrun/wfrun/agentapi/workspace"
	"github.com/wfrun/wfrun/engine"
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

// providerSet builds the providers this command line configures besides the
// engine's built-in fake: openai when wants (the provider the request names)
// is "openai", or names none while the environment or --base-url points at
// an endpoint, with the MCP servers of
// --mcp-config as its tools when withTools, and the command provider of
// --command-spec. close stops what they started (MCP servers). A provider
// that cannot be built is an AGENT_START error saying what to set.
func providerSet(ctx context.Context, pf providerFlags, getenv func(string) string, wants string, withTools bool) (ps []agentapi.Provider, close func(), err error) {
	close = func() {}
	if pf.commandSpec != "" {
		spec, err := commandprovider.LoadSpec(pf.commandSpec)
		if err != nil {
			return nil, close, precheck(engine.CodeInvalidRequest, "--command-spec: %v", err)
		}
		if spec.Sandbox {
			if spec.Workspace, err = workspace.New(pf.workspace); err != nil {
				return nil, close, precheck(engine.CodeInvalidRequest, "--command-spec %s asks for the sandbox: %v", pf.commandSpec, err)
			}
		}
		p, err := commandprovider.New(spec)
		if err != nil {
			return nil, close, precheck(engine.CodeInvalidRequest, "--command-spec %s: %v", pf.commandSpec, err)
		}
		ps = append(ps, p)
	}
	acps, err := acpProviders(pf)
	if err != nil {
		return nil, close, err
	}
	ps = append(ps, acps...)
	switch {
	case wants == "openai":
	case wants == "" && (wantsOpenAI(getenv) || pf.baseURL != ""):
	default:
		return ps, close, nil // openai is neither asked for nor configured
	}
	cfg, err := openaiConfig(pf, getenv)
	if err != nil {
		return nil, close, err
	}
	if pf.mcpConfig != "" && withTools {
		mc, err := mcptools.LoadConfig(pf.mcpConfig)
		if err != nil {
			return nil, close, precheck(engine.CodeInvalidRequest, "--mcp-config: %v", err)
		}
		tb, err := mcptools.New(ctx, mc)
		if err != nil {
			return nil, close, precheck(engine.CodeAgentStart, "--mcp-config: %v", err)
		}
		cfg.Toolbox = tb
		close = func() { _ = tb.Close() }
	}
	p, err := openai.New(cfg)
	if err != nil {
		close()
		return nil, func() {}, precheck(engine.CodeAgentStart, "the openai provider is not configured: %v", err)
	}
	return append(ps, p), close, nil
}

// acpProviders builds a provider acp:NAME for every agent of --acp-config
// and --acp-agent, all working in the --workspace; a name given twice is a
// mistake.
func acpProviders(pf providerFlags) ([]agentapi.Provider, error) {
	if pf.acpConfig == "" && len(pf.acpAgents) == 0 {
		return nil, nil
	}
	agents := map[string]acp.Agent{}
	var names []string
	if pf.acpConfig != "" {
		f, err := acp.LoadFile(pf.acpConfig)
		if err != nil {
			return nil, precheck(engine.CodeInvalidRequest, "--acp-config: %v", err)
		}
		for name, a := range f.Agents {
			agents[name] = a
			names = append(names, name)
		}
		slices.Sort(names)
	}
	for _, flag := range pf.acpAgents {
		name, a, err := acp.ParseAgentFlag(flag)
		if err != nil {
			return nil, precheck(engine.CodeInvalidRequest, "%v", err)
		}
		if _, dup := agents[name]; dup {
			return nil, precheck(engine.CodeInvalidRequest, "--acp-agent %s: an ACP agent named %q is already configured (by --acp-config or another --acp-agent); give each agent its own name", name, name)
		}
		agents[name] = a
		names = append(names, name)
	}
	ws, err := workspace.New(pf.workspace)
	if err != nil {
		return nil, precheck(engine.CodeInvalidRequest, "--workspace: %v", err)
	}
	ps := make([]agentapi.Provider, 0, len(names))
	for _, name := range names {
		p, err := acp.New(acp.Config{Name: name, Agent: agents[name], Workspace: ws})
		if err != nil {
			return nil, precheck(engine.CodeInvalidRequest, "%v", err)
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// openaiConfig is the openai provider's configuration from the
// environment and the flags, without tools.
func openaiConfig(pf providerFlags, getenv func(string) string) (openai.Config, error) {
	cfg := openai.ConfigFromEnv(getenv)
	if pf.baseURL != "" {
		cfg.BaseURL = pf.baseURL
	}
	if pf.model != "" {
		cfg.Model = pf.model
	}
	cfg.TranscriptDir = pf.transcripts
	cfg.Personas, cfg.Models = pf.personas, pf.models
	ws, err := workspace.New(pf.workspace)
	if err != nil {
		return cfg, precheck(engine.CodeInvalidRequest, "--workspace: %v", err)
	}
	cfg.Workspace = ws
	if pf.prices != "" {
		prices, err := openai.LoadPrices(pf.prices)
		if err != nil {
			return cfg, precheck(engine.CodeInvalidRequest, "--prices: %v", err)
		}
		cfg.Prices = openai.DefaultPrices()
		for model, price := range prices {
			cfg.Prices[model] = price
		}
	}
	return cfg, nil
}

// wantsOpenAI reports whether the environment asks for the openai provider.
func wantsOpenAI(getenv func(string) string) bool {
	return getenv("OPENAI_API_KEY") != "" || getenv("OPENAI_BASE_URL") != ""
}

// defaultProvider picks the provider of a run that names none: openai when
// it is configured, else fake. The notice, when not empty, tells the person
// at the shell which one and why.
func defaultProvider(providers []agentapi.Provider) (name, notice string) {
	for _, p := range providers {
		if p.Name() == "openai" {
			return "openai", ""
		}
	}
	return engine.DefaultProvider, "no provider configured; using the offline fake provider (set OPENAI_API_KEY or pass --provider)"
}

// providersCmd prints the providers the environment configures and
// their capabilities.
func providersCmd(*flag.FlagSet) runFunc { return listProviders }

func listProviders(e env, args []string) int {
	if len(args) > 0 {
		return usageFail(e, "providers takes no arguments; got %q", args[0])
	}
	providers, closeProviders, err := providerSet(context.Background(), providerFlags{}, e.getenv, "", false)
	if err != nil {
		return printJSON(e, engine.FailedResult("", err), exitFailed)
	}
	defer closeProviders()
	def, _ := defaultProvider(providers)
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
