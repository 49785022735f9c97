package modelmap

import (
	"sort"
	"strings"
)

// FallbackContextWindow is the window assumed for a model whose family is
// not in the table below. It is deliberately modest: many locally served
// models (Ollama, llama.cpp) run with a window this size or smaller, and a
// child that elides old tool results a little early loses less than one
// whose requests are silently truncated. Give the real figure with a
// contextWindow in the model map.
const FallbackContextWindow = 32_768

// contextWindows maps a model family (a prefix of the model id) to its
// context window in tokens. Each figure is the one the vendor publishes on
// the model's page, as read when the table was written (2025):
var contextWindows = map[string]int{
	// OpenAI, platform.openai.com/docs/models.
	"gpt-5":         400_000,
	"gpt-4.1":       1_047_576,
	"gpt-4o":        128_000,
	"chatgpt-4o":    128_000,
	"gpt-4-turbo":   128_000,
	"gpt-4":         8_192,
	"gpt-3.5-turbo": 16_385,
	"o1":            200_000,
	"o3":            200_000,
	"o4-mini":       200_000,
	// Anthropic, docs.anthropic.com models overview: 200K for every Claude
	// model (the 1M window is a beta that must be asked for).
	"claude": 200_000,
	// DeepSeek API documentation, "Models & Pricing": 128K since V3.1.
	"deepseek": 128_000,
	// Google, ai.google.dev Gemini model pages: 1,048,576 input tokens for
	// Gemini 1.5 Pro/Flash and the 2.x models.
	"gemini-1.5": 1_048_576,
	"gemini-2":   1_048_576,
}

// familyKeys are the keys of contextWindows, longest first, so that
// "gpt-4o" is tried before "gpt-4".
var familyKeys = func() []string {
	keys := make([]string, 0, len(contextWindows))
	for k := range contextWindows {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if len(keys[i]) != len(keys[j]) {
			return len(keys[i]) > len(keys[j])
		}
		return keys[i] < keys[j]
	})
	return keys
}()

// DefaultContextWindow is the context window of model as far as wfrun
// knows it without a model map: the published window of its family, or
// FallbackContextWindow. A router prefix ("openai/gpt-4o", as OpenRouter
// writes it) is ignored.
func DefaultContextWindow(model string) int {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	for _, k := range familyKeys {
		if strings.HasPrefix(m, k) {
			return contextWindows[k]
		}
	}
	return FallbackContextWindow
}
