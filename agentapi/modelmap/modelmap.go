package modelmap

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/wfrun/wfrun/internal/strictjson"
)

// The Claude model aliases scripts and persona files write, and the two
// words that mean "the run's model".
const (
	Opus     = "opus"
	Sonnet   = "sonnet"
	Haiku    = "haiku"
	OpusPlan = "opusplan" // Claude Code: opus while planning, sonnet while doing
	Inherit  = "inherit"  // persona files: the model of the agent that started it
	Default  = "default"  // Claude Code's account default; here, the run's model
)

// Entry is what one name maps to.
type Entry struct {
	// Model is the model sent to the endpoint; "" keeps the name itself
	// (an entry that only gives a context window), "inherit" means the
	// run's model.
	Model string `json:"model,omitempty"`
	// ContextWindow is the model's context window in tokens; 0 means the
	// default for the resolved model (DefaultContextWindow).
	ContextWindow int `json:"contextWindow,omitempty"`
}

// Map maps aliases and model ids to models. The zero value and nil are an
// empty map: every alias falls back (or, on Anthropic's endpoint, becomes
// Anthropic's id) and every other name passes through. A Map is never
// changed after it is built, so it is safe for concurrent use.
type Map struct {
	entries map[string]Entry // keys: aliases lower-cased, ids as written
}

// New returns a Map of entries. Keys that are aliases are matched without
// regard to case; other keys are model ids, matched exactly. It fails on an
// empty key or a negative window, with a sentence naming the key.
func New(entries map[string]Entry) (*Map, error) {
	m := &Map{entries: make(map[string]Entry, len(entries))}
	for _, k := range slices.Sorted(maps.Keys(entries)) {
		e := entries[k]
		key := strings.TrimSpace(k)
		if key == "" {
			return nil, fmt.Errorf("the model map has an empty name: write NAME=MODEL, e.g. sonnet=gpt-4.1")
		}
		if e.ContextWindow < 0 {
			return nil, fmt.Errorf("the model map gives %q a negative contextWindow (%d): give the window in tokens, e.g. 128000", key, e.ContextWindow)
		}
		if isInherit(key) {
			return nil, fmt.Errorf("the model map maps %q, which always means the run's model: set the run's model with --model instead", key)
		}
		e.Model = strings.TrimSpace(e.Model)
		if e.Model == "" && e.ContextWindow == 0 {
			return nil, fmt.Errorf("the model map entry %q has neither a model nor a contextWindow: write %s=MODEL, or {\"%s\": {\"model\": \"MODEL\", \"contextWindow\": TOKENS}}", key, key, key)
		}
		if _, dup := m.entries[normKey(key)]; dup {
			return nil, fmt.Errorf("the model map names %q twice: keep one", key)
		}
		m.entries[normKey(key)] = e
	}
	return m, nil
}

// ParseFlag reads the --model-map flag: either NAME=MODEL pairs separated by
// commas ("haiku=gpt-4o-mini,sonnet=gpt-4.1") or, when it starts with "{",
// the JSON form that Parse reads.
func ParseFlag(s string) (*Map, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "{") {
		return Parse([]byte(s))
	}
	entries := map[string]Entry{}
	for _, pair := range strings.Split(s, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		name, model, ok := strings.Cut(pair, "=")
		name, model = strings.TrimSpace(name), strings.TrimSpace(model)
		if !ok || name == "" || model == "" {
			return nil, fmt.Errorf("--model-map: %q is not NAME=MODEL; write e.g. haiku=gpt-4o-mini,sonnet=gpt-4.1,opus=o3", pair)
		}
		if _, dup := entries[normKey(name)]; dup {
			return nil, fmt.Errorf("--model-map names %q twice: keep one", name)
		}
		entries[normKey(name)] = Entry{Model: model}
	}
	if len(entries) == 0 {
		return nil, fmt.Errorf("--model-map is empty: write e.g. haiku=gpt-4o-mini,sonnet=gpt-4.1,opus=o3")
	}
	return New(entries)
}

// Parse reads the JSON form of a model map: an object whose values are
// a model name or {"model": NAME, "contextWindow": TOKENS}:
//
//	{"haiku": "gpt-4o-mini", "sonnet": {"model": "gpt-4.1", "contextWindow": 1047576},
//	 "llama3.1": {"contextWindow": 8192}}
func Parse(data []byte) (*Map, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("the model map is not a JSON object of {\"ALIAS\": \"MODEL\"} or {\"ALIAS\": {\"model\": \"MODEL\", \"contextWindow\": TOKENS}}: %w", err)
	}
	entries := make(map[string]Entry, len(raw))
	for name, v := range raw {
		var e Entry
		switch v = bytes.TrimSpace(v); {
		case len(v) > 0 && v[0] == '"':
			if err := json.Unmarshal(v, &e.Model); err != nil {
				return nil, fmt.Errorf("the model map entry %q: %w", name, err)
			}
		case len(v) > 0 && v[0] == '{':
			if err := strictjson.Decode(v, &e); err != nil {
				return nil, fmt.Errorf("the model map entry %q must be {\"model\": \"MODEL\", \"contextWindow\": TOKENS}: %w", name, err)
			}
		default:
			return nil, fmt.Errorf("the model map entry %q is %s: give a model name or {\"model\": \"MODEL\", \"contextWindow\": TOKENS}", name, v)
		}
		entries[name] = e
	}
	return New(entries)
}

// Load reads a model map file in the JSON form.
func Load(path string) (*Map, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the model map: %w", err)
	}
	m, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// Merge returns a Map with the entries of m and then of over, over's
// winning where both name the same key. Either may be nil.
func Merge(m, over *Map) *Map {
	out := &Map{entries: map[string]Entry{}}
	for _, src := range []*Map{m, over} {
		if src != nil {
			maps.Copy(out.entries, src.entries)
		}
	}
	return out
}

// Entries returns a copy of the map's entries, keyed as stored (aliases
// lower-cased).
func (m *Map) Entries() map[string]Entry {
	if m == nil {
		return map[string]Entry{}
	}
	return maps.Clone(m.entries)
}

// lookup finds name's entry: aliases regardless of case, ids exactly.
func (m *Map) lookup(name string) (Entry, bool) {
	if m == nil {
		return Entry{}, false
	}
	e, ok := m.entries[normKey(name)]
	return e, ok
}

// normKey lower-cases aliases, so that "Sonnet" and "sonnet" are one key,
// and keeps model ids as written, since endpoints match them exactly.
func normKey(name string) string {
	if _, ok := aliasOf(name); ok || isInherit(name) {
		return strings.ToLower(strings.TrimSpace(name))
	}
	return strings.TrimSpace(name)
}
