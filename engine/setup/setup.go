package setup

import (
	"context"
	"os"
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
	"github.com/wfrun/wfrun/internal/wferr"
)

// Options are the settings of the real providers. The zero value builds
// only what the environment configures (openai, when OPENAI_API_KEY or
// OPENAI_BASE_URL is set).
type Options struct {
	// Provider is the provider the request names, "" when it names none.
	// "openai" builds the openai provider whatever the environment says
	// (and fails saying what to set when it cannot); "" builds it when
	// the environment or BaseURL points at an endpoint.
	Provider string
	// Model is the openai provider's default model (--model), over
	// WFRUN_MODEL.
	Model string
	// BaseURL is the openai endpoint (--base-url), over OPENAI_BASE_URL.
	BaseURL string
	// MCPConfig is an MCP servers file (--mcp-config) whose tools the
	// openai provider's children get, when WithTools.
	MCPConfig string
	// WithTools starts the MCP servers of MCPConfig. A caller that runs
	// nothing (a check) leaves it false and starts no process.
	WithTools bool
	// CommandSpec is the command provider's spec file (--command-spec).
	CommandSpec string
	// ACPAgents are NAME=COMMAND ARGS… settings (--acp-agent), each a
	// provider acp:NAME.
	ACPAgents []string
	// ACPConfig is a file of ACP agents (--acp-config).
	ACPConfig string
	// Transcripts is the folder of the openai children's transcripts
	// (--transcripts); "" keeps none.
	Transcripts string
	// Prices is a price table file (--prices) over openai's defaults.
	Prices string
	// Personas are what agentType may name; nil knows the built-ins only.
	Personas *persona.Set
	// Models maps model names for the openai provider (--model-map); nil
	// maps none.
	Models *modelmap.Map
	// Workspace is the folder and sandbox the children work in.
	Workspace workspace.Config
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
}

func (o Options) getenv(name string) string {
	if o.Getenv == nil {
		return os.Getenv(name)
	}
	return o.Getenv(name)
}

// Set is the providers Options configure, besides the engine's built-in
// fake.
type Set struct {
	// Providers are the providers built, in order: the command provider,
	// the ACP agents by name, then openai.
	Providers []agentapi.Provider
	// Default names the provider of a request that names none.
	Default string
	// Notice, when not empty, tells a person why Default is what it is
	// (the offline fake, and how to configure a real provider).
	Notice string

	close func()
}

// Close stops what Providers started: the MCP servers of Options.MCPConfig.
// It is safe to call more than once, and on a nil Set.
func (s *Set) Close() {
	if s == nil || s.close == nil {
		return
	}
	c := s.close
	s.close = nil
	c()
}

// Apply configures cfg to use the set: its providers, besides cfg's own,
// and its default.
func (s *Set) Apply(cfg *engine.Config) {
	cfg.Providers = append(cfg.Providers, s.Providers...)
	cfg.DefaultProvider = s.Default
}

// Providers builds the providers o configures: the command provider of
// CommandSpec, a provider acp:NAME for every ACP agent, and openai when
// o.Provider is "openai", or is "" while the environment or BaseURL
// points at an endpoint. A provider that cannot be built is an error
// (INVALID_REQUEST for a setting that is wrong, AGENT_START for one that
// cannot start) saying what to set; nothing is left running then. ctx
// bounds the start of the MCP servers.
func Providers(ctx context.Context, o Options) (*Set, error) {
	var ps []agentapi.Provider
	if o.CommandSpec != "" {
		p, err := commandProvider(o)
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	acps, err := acpProviders(o)
	if err != nil {
		return nil, err
	}
	ps = append(ps, acps...)
	if !wantsOpenAI(o) {
		return newSet(ps, nil), nil
	}
	cfg, err := OpenAIConfig(o)
	if err != nil {
		return nil, err
	}
	closeTools := func() {}
	if o.MCPConfig != "" && o.WithTools {
		tb, err := mcpToolbox(ctx, o.MCPConfig)
		if err != nil {
			return nil, err
		}
		cfg.Toolbox = tb
		closeTools = func() { _ = tb.Close() }
	}
	p, err := openai.New(cfg)
	if err != nil {
		closeTools()
		return nil, wferr.New(wferr.AgentStart, "the openai provider is not configured: %v", err)
	}
	return newSet(append(ps, p), closeTools), nil
}

// newSet is the set of ps, with its default chosen.
func newSet(ps []agentapi.Provider, close func()) *Set {
	s := &Set{Providers: ps, close: close}
	s.Default, s.Notice = DefaultProvider(ps)
	return s
}

// wantsOpenAI reports whether o asks for the openai provider: by name, or
// by naming none while an endpoint is configured.
func wantsOpenAI(o Options) bool {
	switch o.Provider {
	case "openai":
		return true
	case "":
		return o.getenv("OPENAI_API_KEY") != "" || o.getenv("OPENAI_BASE_URL") != "" || o.BaseURL != ""
	}
	return false
}

// DefaultProvider picks the provider of a request that names none: openai
// when providers has it, else the engine's built-in fake. The notice, when
// not empty, tells the person at the shell which one and why.
func DefaultProvider(providers []agentapi.Provider) (name, notice string) {
	for _, p := range providers {
		if p.Name() == "openai" {
			return "openai", ""
		}
	}
	return engine.DefaultProvider, "no provider configured; using the offline fake provider (set OPENAI_API_KEY or pass --provider)"
}

// commandProvider builds the command provider of o.CommandSpec, in the
// sandboxed workspace when its spec asks for the sandbox.
func commandProvider(o Options) (agentapi.Provider, error) {
	spec, err := commandprovider.LoadSpec(o.CommandSpec)
	if err != nil {
		return nil, wferr.New(wferr.InvalidRequest, "--command-spec: %v", err)
	}
	if spec.Sandbox {
		if spec.Workspace, err = workspace.New(o.Workspace); err != nil {
			return nil, wferr.New(wferr.InvalidRequest, "--command-spec %s asks for the sandbox: %v", o.CommandSpec, err)
		}
	}
	p, err := commandprovider.New(spec)
	if err != nil {
		return nil, wferr.New(wferr.InvalidRequest, "--command-spec %s: %v", o.CommandSpec, err)
	}
	return p, nil
}

// acpProviders builds a provider acp:NAME for every agent of o.ACPConfig
// and o.ACPAgents, all working in o.Workspace; a name given twice is a
// mistake.
func acpProviders(o Options) ([]agentapi.Provider, error) {
	if o.ACPConfig == "" && len(o.ACPAgents) == 0 {
		return nil, nil
	}
	agents := map[string]acp.Agent{}
	var names []string
	if o.ACPConfig != "" {
		f, err := acp.LoadFile(o.ACPConfig)
		if err != nil {
			return nil, wferr.New(wferr.InvalidRequest, "--acp-config: %v", err)
		}
		for name, a := range f.Agents {
			agents[name] = a
			names = append(names, name)
		}
		slices.Sort(names)
	}
	for _, flag := range o.ACPAgents {
		name, a, err := acp.ParseAgentFlag(flag)
		if err != nil {
			return nil, wferr.New(wferr.InvalidRequest, "%v", err)
		}
		if _, dup := agents[name]; dup {
			return nil, wferr.New(wferr.InvalidRequest, "--acp-agent %s: an ACP agent named %q is already configured (by --acp-config or another --acp-agent); give each agent its own name", name, name)
		}
		agents[name] = a
		names = append(names, name)
	}
	ws, err := workspace.New(o.Workspace)
	if err != nil {
		return nil, wferr.New(wferr.InvalidRequest, "--workspace: %v", err)
	}
	ps := make([]agentapi.Provider, 0, len(names))
	for _, name := range names {
		p, err := acp.New(acp.Config{Name: name, Agent: agents[name], Workspace: ws})
		if err != nil {
			return nil, wferr.New(wferr.InvalidRequest, "%v", err)
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// mcpToolbox starts the MCP servers of the file path.
func mcpToolbox(ctx context.Context, path string) (*mcptools.Toolbox, error) {
	mc, err := mcptools.LoadConfig(path)
	if err != nil {
		return nil, wferr.New(wferr.InvalidRequest, "--mcp-config: %v", err)
	}
	tb, err := mcptools.New(ctx, mc)
	if err != nil {
		return nil, wferr.New(wferr.AgentStart, "--mcp-config: %v", err)
	}
	return tb, nil
}

// OpenAIConfig is the openai provider's configuration from the environment
// and o, without tools: the endpoint and model (o's over the
// environment's), the transcripts, personas, model map, workspace and
// prices. It is what Providers builds openai from, and what a parent
// model on the same endpoint starts from.
func OpenAIConfig(o Options) (openai.Config, error) {
	cfg := openai.ConfigFromEnv(o.getenv)
	if o.BaseURL != "" {
		cfg.BaseURL = o.BaseURL
	}
	if o.Model != "" {
		cfg.Model = o.Model
	}
	cfg.TranscriptDir = o.Transcripts
	cfg.Personas, cfg.Models = o.Personas, o.Models
	ws, err := workspace.New(o.Workspace)
	if err != nil {
		return cfg, wferr.New(wferr.InvalidRequest, "--workspace: %v", err)
	}
	cfg.Workspace = ws
	if o.Prices != "" {
		prices, err := openai.LoadPrices(o.Prices)
		if err != nil {
			return cfg, wferr.New(wferr.InvalidRequest, "--prices: %v", err)
		}
		cfg.Prices = openai.DefaultPrices()
		for model, price := range prices {
			cfg.Prices[model] = price
		}
	}
	return cfg, nil
}
