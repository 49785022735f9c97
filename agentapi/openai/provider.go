package openai

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	goopenai "github.com/sashabaranov/go-openai"
	"go.opentelemetry.io/otel/attribute"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/modelmap"
	"github.com/wfrun/wfrun/agentapi/persona"
	"github.com/wfrun/wfrun/agentapi/schema"
)

// Provider runs each child as its own conversation with an
// OpenAI-compatible chat completions endpoint. Create it with New; it is
// safe for concurrent use. It owns no goroutines between calls to Run.
type Provider struct {
	cfg    Config
	client *goopenai.Client
	gate   gate // one per Provider, that is per endpoint: see gate

	schemas schema.Cache // each distinct answer schema compiled once

	// toolSchema is set once an endpoint in SchemaAuto mode refused
	// response_format: later schema calls go straight to the tool.
	toolSchema atomic.Bool
	// noNamedChoice is set once the endpoint refused a tool_choice that
	// names a function (llama-server takes only "auto", "none" and
	// "required"); later requests send "required" instead.
	noNamedChoice atomic.Bool

	// efforts remembers, per model and reasoning_effort value the endpoint
	// refused, the value sent instead ("" for none), so that later children
	// do not pay for the same refusal. Keys are "MODEL\x00EFFORT".
	efforts sync.Map

	anthropic bool // the endpoint is Anthropic's: Claude aliases have models there

	server []attribute.KeyValue // server.address and server.port of the chat spans
}

var _ agentapi.Provider = (*Provider)(nil)

// New returns a Provider for cfg. It fails when cfg names no endpoint
// (neither BaseURL nor APIKey) or no model, with a sentence naming the
// variable to set.
func New(cfg Config) (*Provider, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	cc := goopenai.DefaultConfig(cfg.APIKey)
	cc.BaseURL = cfg.BaseURL
	cc.HTTPClient = recordingDoer{c: cfg.HTTPClient}
	return &Provider{cfg: cfg, client: goopenai.NewClientWithConfig(cc), anthropic: modelmap.IsAnthropic(cfg.BaseURL),
		server: serverAttributes(cfg.BaseURL)}, nil
}

// Name returns "openai".
func (p *Provider) Name() string { return "openai" }

// Capabilities returns what the provider honours: schema, tools, personas
// (agentType), maxTurns, model and effort; isolation when it has a
// workspace; and depthLimit, because a child has only the tools it is
// given (built-in, MCP, and a continued child's sub-agent tools from the
// host), so it cannot start agents the host does not count.
func (p *Provider) Capabilities() agentapi.Capabilities {
	return agentapi.Capabilities{
		OutputSchema: true,
		ToolFilter:   true,
		Persona:      true,
		Effort:       true,
		Isolation:    p.cfg.Workspace != nil,
		Model:        true,
		MaxTurns:     true,
		DepthLimit:   true,
	}
}

// Personas returns the personas a request may name, so that the run side
// can refuse an unknown agentType before it dispatches a child. It is
// never nil: without Config.Personas it holds the built-ins.
func (p *Provider) Personas() *persona.Set { return p.cfg.Personas }

// Models returns the provider's model map (nil when none is configured).
func (p *Provider) Models() *modelmap.Map { return p.cfg.Models }

// Run runs one child: a fresh conversation of at most the request's turn
// limit. It returns an error only when the provider is misconfigured (the
// endpoint refuses the credentials, the toolbox cannot list its tools, the
// transcript cannot be written) or the request names a persona that does
// not exist (UNSUPPORTED_OPTION); every other outcome is a Result.
func (p *Provider) Run(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
	c, err := p.newConversation(ctx, req, setup{})
	if err != nil {
		if ctx.Err() != nil {
			s, _ := p.settle(req)
			return (&conversation{p: p, settings: s}).ended(ctx), nil
		}
		return agentapi.Result{}, err
	}
	c.add(goopenai.ChatCompletionMessage{Role: goopenai.ChatMessageRoleUser, Content: req.Prompt})
	res, err := c.run(ctx)
	res.Worktree = c.leaveWorkplace(context.WithoutCancel(ctx))
	c.finish(res, err)
	return res, err
}

// price returns the cost of u on model, and a note when the model has no
// price.
func (p *Provider) price(model string, u agentapi.Usage) (float64, string) {
	pr, ok := priceOf(p.cfg.Prices, model)
	if !ok {
		return 0, fmt.Sprintf("no price for model %s", model)
	}
	return pr.cost(u), ""
}

// CheckPersona returns the error an agentType name that is not in the
// provider's persona set gets at run time (agentapi.PersonaChecker).
func (p *Provider) CheckPersona(name string) error {
	_, err := p.cfg.Personas.Lookup(name)
	return err
}

// CheckModel returns the note a child naming model would get from the model
// map — an alias that is not mapped falls back to the run's model — or ""
// (agentapi.ModelChecker).
func (p *Provider) CheckModel(name string) string {
	return p.cfg.Models.Resolve(name, p.cfg.Model, p.anthropic).Note
}

var (
	_ agentapi.PersonaChecker = (*Provider)(nil)
	_ agentapi.ModelChecker   = (*Provider)(nil)
)
