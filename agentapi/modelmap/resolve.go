package modelmap

import (
	"fmt"
	"net/url"
	"strings"
)

// Resolution is what a requested model name comes to on one endpoint.
type Resolution struct {
	Model         string // the model to send
	ContextWindow int    // its context window in tokens, never 0
	// Note is set when the request could not be honoured as written (an
	// unmapped alias fell back to the run's model): a sentence for
	// agent.end and check's warnings.
	Note string
}

// anthropicIDs are the model ids Anthropic's own API serves for each alias:
// its undated aliases of the newest model of each tier, as listed in
// Anthropic's models overview when this table was written (2025). Map the
// alias to pin another model.
var anthropicIDs = map[string]string{
	Opus:   "claude-opus-4-1",
	Sonnet: "claude-sonnet-4-5",
	Haiku:  "claude-haiku-4-5",
}

// oneMillion is the window of Claude Code's [1m] aliases on Anthropic's API.
const oneMillion = 1_000_000

// Resolve says which model to send for requested (a call's, phase's or
// persona's model: an alias, "inherit", a full id, or "" for none), given
// the run's model and whether the endpoint is Anthropic's. See the package
// documentation for the rules. A nil Map resolves as an empty one.
func (m *Map) Resolve(requested, runModel string, anthropic bool) Resolution {
	name := strings.TrimSpace(requested)
	if name == "" || isInherit(name) {
		name = strings.TrimSpace(runModel)
		if name == "" || isInherit(name) {
			return Resolution{Model: name, ContextWindow: FallbackContextWindow}
		}
	}
	return m.resolve(name, runModel, anthropic)
}

func (m *Map) resolve(name, runModel string, anthropic bool) Resolution {
	if e, ok := m.lookup(name); ok && e.Model != "" {
		target := e.Model
		if isInherit(target) {
			target = runModel
		}
		return Resolution{Model: target, ContextWindow: firstPositive(e.ContextWindow, m.window(target))}
	}
	base, ok := aliasOf(name)
	if !ok {
		return Resolution{Model: name, ContextWindow: m.window(name)}
	}
	if base != strings.ToLower(name) {
		if _, mapped := m.lookup(base); mapped {
			return m.resolve(base, runModel, anthropic) // sonnet[1m] and opusplan follow sonnet's mapping
		}
	}
	if anthropic {
		id := anthropicIDs[base]
		w := m.window(id)
		if strings.HasSuffix(strings.ToLower(name), "[1m]") {
			w = oneMillion
		}
		return Resolution{Model: id, ContextWindow: w}
	}
	run := strings.TrimSpace(runModel)
	if run == "" || isInherit(run) {
		return Resolution{Model: "", ContextWindow: FallbackContextWindow,
			Note: fmt.Sprintf("the model alias %s is not mapped to a model of this endpoint and the run has no model to fall back to; map it with --model-map %s=MODEL", name, base)}
	}
	if _, isAlias := aliasOf(run); isAlias {
		// The run's own model is an alias too (WFRUN_MODEL=sonnet on a
		// non-Anthropic endpoint): there is nothing better to send.
		return Resolution{Model: run, ContextWindow: m.window(run)}
	}
	return Resolution{Model: run, ContextWindow: m.window(run),
		Note: fmt.Sprintf("the model alias %s is not mapped to a model of this endpoint, so the run's model %s was used; map it with --model-map %s=MODEL", name, run, base)}
}

// window is model's context window: the map's contextWindow for it, else
// the default for its family.
func (m *Map) window(model string) int {
	if e, ok := m.lookup(model); ok && e.ContextWindow > 0 {
		return e.ContextWindow
	}
	return DefaultContextWindow(model)
}

// IsAlias reports whether name is a Claude model alias (opus, sonnet, haiku,
// opusplan, sonnet[1m], opus[1m]; any case).
func IsAlias(name string) bool {
	_, ok := aliasOf(name)
	return ok
}

// aliasOf returns the tier an alias stands for: opus, sonnet or haiku.
// opusplan is sonnet, because a child carries a task out rather than plans
// it; the [1m] forms are their tier.
func aliasOf(name string) (string, bool) {
	n := strings.ToLower(strings.TrimSpace(name))
	n = strings.TrimSuffix(n, "[1m]")
	switch n {
	case Opus, Sonnet, Haiku:
		return n, true
	case OpusPlan:
		return Sonnet, true
	}
	return "", false
}

// isInherit reports whether name means the run's model.
func isInherit(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	return n == Inherit || n == Default
}

// IsAnthropic reports whether baseURL is Anthropic's API (its
// OpenAI-compatible endpoint is https://api.anthropic.com/v1), where the
// Claude aliases have models of their own.
func IsAnthropic(baseURL string) bool {
	u, err := url.Parse(strings.TrimSpace(baseURL))
	if err != nil {
		return false
	}
	host := strings.ToLower(u.Hostname())
	return host == "anthropic.com" || strings.HasSuffix(host, ".anthropic.com")
}

func firstPositive(a, b int) int {
	if a > 0 {
		return a
	}
	return b
}
