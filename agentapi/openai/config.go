package openai

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/modelmap"
	"github.com/wfrun/wfrun/agentapi/persona"
	"github.com/wfrun/wfrun/agentapi/workspace"
)

// The defaults of a zero Config field.
const (
	DefaultBaseURL        = "https://api.openai.com/v1" // used when BaseURL is empty and APIKey is set
	DefaultMaxTurns       = 20
	DefaultSchemaRetries  = 3
	DefaultMaxRetries     = 5
	DefaultRetryBaseDelay = 500 * time.Millisecond

	// maxRetryDelay caps one exponential backoff step.
	maxRetryDelay = 30 * time.Second
	// maxRetryAfter caps a server's Retry-After, so that a child without a
	// deadline cannot be parked for hours by one header.
	maxRetryAfter = 5 * time.Minute
)

// The values of Config.JSONSchemaMode.
const (
	// SchemaAuto asks for response_format json_schema and, when the endpoint
	// answers 400 naming response_format, falls back to SchemaTool for the
	// rest of the Provider's life.
	SchemaAuto = "auto"
	// SchemaResponseFormat always uses response_format json_schema.
	SchemaResponseFormat = "response_format"
	// SchemaTool offers a final_answer tool whose parameters are the schema
	// and requires the model to call a tool.
	SchemaTool = "tool"
)

// Config configures a Provider. The zero value of every field except Model
// and the endpoint (BaseURL or APIKey) means the documented default.
type Config struct {
	// BaseURL is the OpenAI-compatible endpoint, up to and including /v1
	// (e.g. http://127.0.0.1:11434/v1). Empty means DefaultBaseURL, which
	// needs an APIKey.
	BaseURL string
	// APIKey is sent as a bearer token when not empty. Local servers
	// usually need none.
	APIKey string
	// Model is the default model; a request's Model overrides it.
	Model string

	// RequestTimeout bounds one HTTP request (one attempt of one turn); an
	// attempt that exceeds it is retried like a connection reset. 0 means
	// no bound beyond the child's context.
	RequestTimeout time.Duration

	MaxTurns       int           // turns per child when the request gives none; 0 = DefaultMaxTurns
	SchemaRetries  int           // invalid schema answers sent back for correction; 0 = DefaultSchemaRetries, <0 = none
	MaxRetries     int           // retries of one HTTP request; 0 = DefaultMaxRetries, <0 = none
	RetryBaseDelay time.Duration // first backoff step, doubled per retry; 0 = DefaultRetryBaseDelay

	// JSONSchemaMode says how a schema call asks for structured output:
	// SchemaAuto (""), SchemaResponseFormat or SchemaTool.
	JSONSchemaMode string

	// Prices maps model names to their price. nil means DefaultPrices().
	// A model is looked up by exact name, then as a dated snapshot of a
	// key ("gpt-4o-2024-08-06" is priced as "gpt-4o").
	Prices map[string]Price

	// Toolbox holds tools children may call besides the built-in ones (the
	// MCP servers' tools, say); nil means none.
	Toolbox agentapi.Toolbox

	// Workspace is the folder children work in and the sandbox mode that
	// bounds them. With it, every child gets the built-in tools (Read,
	// Write, Edit, Glob, Grep, Bash, TodoWrite; agentapi/tools) rooted there,
	// and isolation: 'worktree' gives a child its own git worktree of it. nil
	// means no built-in tools and no isolation.
	Workspace *workspace.Workspace

	// Personas are the personas a request's Persona (agentType) may name;
	// nil means the built-ins only (general-purpose, Explore, Plan). Load
	// it once with persona.Load(persona.SearchDirs(…)).
	Personas *persona.Set

	// Models maps model aliases (opus, sonnet, haiku) and model ids to the
	// endpoint's models and their context windows; nil maps nothing, so an
	// alias falls back to Model with a note (see agentapi/modelmap).
	Models *modelmap.Map

	// TranscriptDir, when not empty, is the folder where each child's
	// conversation is written as AGENTID.jsonl.
	TranscriptDir string

	// HTTPClient sends the requests; nil means a new http.Client without a
	// timeout (RequestTimeout and the child's context bound each request).
	HTTPClient *http.Client
}

// ConfigFromEnv returns a Config read from the environment through getenv
// (os.Getenv in production): OPENAI_API_KEY, OPENAI_BASE_URL and
// WFRUN_MODEL. Every other field keeps its default.
func ConfigFromEnv(getenv func(string) string) Config {
	return Config{
		APIKey:  strings.TrimSpace(getenv("OPENAI_API_KEY")),
		BaseURL: strings.TrimSpace(getenv("OPENAI_BASE_URL")),
		Model:   strings.TrimSpace(getenv("WFRUN_MODEL")),
	}
}

// withDefaults returns c with every zero field set to its default, or an
// error naming the setting to fix.
func (c Config) withDefaults() (Config, error) {
	if c.BaseURL == "" && c.APIKey == "" {
		return c, fmt.Errorf("openai: no endpoint configured: set OPENAI_API_KEY to use %s, or OPENAI_BASE_URL (--base-url) for another OpenAI-compatible server", DefaultBaseURL)
	}
	if c.Model == "" {
		return c, fmt.Errorf("openai: no model configured: set WFRUN_MODEL or pass --model (e.g. gpt-4o-mini, or the name your server serves)")
	}
	if c.BaseURL == "" {
		c.BaseURL = DefaultBaseURL
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	switch c.JSONSchemaMode {
	case "":
		c.JSONSchemaMode = SchemaAuto
	case SchemaAuto, SchemaResponseFormat, SchemaTool:
	default:
		return c, fmt.Errorf("openai: JSONSchemaMode %q is not known: use %q, %q or %q", c.JSONSchemaMode, SchemaAuto, SchemaResponseFormat, SchemaTool)
	}
	if c.MaxTurns <= 0 {
		c.MaxTurns = DefaultMaxTurns
	}
	switch {
	case c.SchemaRetries == 0:
		c.SchemaRetries = DefaultSchemaRetries
	case c.SchemaRetries < 0:
		c.SchemaRetries = 0
	}
	switch {
	case c.MaxRetries == 0:
		c.MaxRetries = DefaultMaxRetries
	case c.MaxRetries < 0:
		c.MaxRetries = 0
	}
	if c.RetryBaseDelay <= 0 {
		c.RetryBaseDelay = DefaultRetryBaseDelay
	}
	if c.Prices == nil {
		c.Prices = DefaultPrices()
	}
	if c.Personas == nil {
		c.Personas = persona.Load(nil)
	}
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{}
	}
	return c, nil
}

// Price is what a model costs, in USD per million tokens.
type Price struct {
	Input  float64 `json:"input"`  // per million prompt tokens not served from the cache
	Output float64 `json:"output"` // per million completion tokens
	// CachedInput is per million prompt tokens served from the cache;
	// 0 means the Input price.
	CachedInput float64 `json:"cachedInput,omitempty"`
}

// DefaultPrices returns a fresh copy of the built-in price table: OpenAI's
// list prices for a few common models, in USD per million tokens, as
// published when this table was written (2025). Prices change; pass a price
// file (LoadPrices) to be sure. A dated snapshot of a listed model
// ("gpt-4o-2024-08-06") has its price. A model absent from the table costs 0 and
// the child's Note says so.
func DefaultPrices() map[string]Price {
	return map[string]Price{
		"gpt-4o":       {Input: 2.50, Output: 10.00, CachedInput: 1.25},
		"gpt-4o-mini":  {Input: 0.15, Output: 0.60, CachedInput: 0.075},
		"gpt-4.1":      {Input: 2.00, Output: 8.00, CachedInput: 0.50},
		"gpt-4.1-mini": {Input: 0.40, Output: 1.60, CachedInput: 0.10},
		"gpt-4.1-nano": {Input: 0.10, Output: 0.40, CachedInput: 0.025},
		"o3":           {Input: 2.00, Output: 8.00, CachedInput: 0.50},
		"o4-mini":      {Input: 1.10, Output: 4.40, CachedInput: 0.275},
		"gpt-5":        {Input: 1.25, Output: 10.00, CachedInput: 0.125},
		"gpt-5-mini":   {Input: 0.25, Output: 2.00, CachedInput: 0.025},
		"gpt-5-nano":   {Input: 0.05, Output: 0.40, CachedInput: 0.005},
	}
}

// LoadPrices reads a price file: a JSON object mapping model names to
// prices, e.g. {"gpt-4o": {"input": 2.5, "output": 10, "cachedInput": 1.25}}.
// It returns only the file's entries; to extend the defaults, copy the
// file's entries over DefaultPrices().
func LoadPrices(path string) (map[string]Price, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("openai: cannot read the price file: %w", err)
	}
	var m map[string]Price
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("openai: the price file %s is not a JSON object of {\"MODEL\": {\"input\": USD, \"output\": USD}} per million tokens: %w", path, err)
	}
	if m == nil {
		m = map[string]Price{}
	}
	for name, p := range m {
		if p.Input < 0 || p.Output < 0 || p.CachedInput < 0 {
			return nil, fmt.Errorf("openai: the price file %s gives %q a negative price: prices are USD per million tokens, 0 or more", path, name)
		}
	}
	return m, nil
}

// priceOf finds model's price: the exact name, else a key of which model
// is a dated snapshot ("gpt-4o-2024-08-06" is priced as "gpt-4o", but
// "o3-mini" is not priced as "o3").
func priceOf(prices map[string]Price, model string) (Price, bool) {
	if p, ok := prices[model]; ok {
		return p, true
	}
	keys := make([]string, 0, len(prices))
	for k := range prices {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return len(keys[i]) > len(keys[j]) })
	for _, k := range keys {
		if k != "" && strings.HasPrefix(model, k) && isSnapshotSuffix(model[len(k):]) {
			return prices[k], true
		}
	}
	return Price{}, false
}

// isSnapshotSuffix reports whether s looks like "-2024-08-06" or "-0613".
func isSnapshotSuffix(s string) bool {
	if len(s) < 2 || s[0] != '-' {
		return false
	}
	for _, r := range s[1:] {
		if r != '-' && (r < '0' || r > '9') {
			return false
		}
	}
	return true
}

// cost is the price of u's tokens.
func (p Price) cost(u agentapi.Usage) float64 {
	cached := p.CachedInput
	if cached == 0 {
		cached = p.Input
	}
	fresh := u.InputTokens - u.CachedTokens
	if fresh < 0 {
		fresh = 0
	}
	return (float64(fresh)*p.Input + float64(u.CachedTokens)*cached + float64(u.OutputTokens)*p.Output) / 1e6
}
