// Package modelmap turns the model names that workflow scripts and persona
// files write into the model an endpoint serves, and says how large that
// model's context window is.
//
// Scripts written for Claude Code ask for models by alias: `model: 'haiku'`,
// `model: 'sonnet'`, `model: 'opus'`, or `inherit` (the run's own model).
// An OpenAI-compatible endpoint knows none of these names. A Map says what
// each alias means on the run's endpoint:
//
//	--model-map haiku=gpt-4o-mini,sonnet=gpt-4.1,opus=o3
//	{"sonnet": {"model": "gpt-4.1", "contextWindow": 1047576}, "haiku": "gpt-4o-mini"}
//
// Map.Resolve applies it, with these rules:
//
//   - "", "inherit" and "default" mean the run's model.
//   - A mapped name becomes its mapping. Keys are aliases or full model ids
//     (a full id may be renamed, or only given a contextWindow).
//   - An alias that is not mapped is sent as Anthropic's own model id when
//     the endpoint is Anthropic's (IsAnthropic), and otherwise falls back to
//     the run's model with a note, which the run shows on agent.end and
//     `check` as a warning. The aliases are opus, sonnet, haiku, and Claude
//     Code's opusplan (opus when planning, sonnet when doing: a child does,
//     so it is sonnet) and the [1m] forms (sonnet[1m], opus[1m]).
//   - Any other name is a full model id and passes through unchanged.
//
// The context window of the result is the map's contextWindow for the name
// asked for, else for the resolved model, else DefaultContextWindow's figure
// for the model's family, else FallbackContextWindow.
//
// Effort is the closed vocabulary of the `effort` option (low, medium, high,
// xhigh; Claude Code's max is read as xhigh), with its OpenAI
// reasoning_effort value and the level to step down to when an endpoint
// refuses it.
//
// A Map is immutable once built and safe for concurrent use. The package
// holds no mutable state. It imports only the standard library; providers
// (agentapi/openai) and the command line use it, and agentapi/persona uses
// its Effort to check persona files.
package modelmap
