package command

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseSpecReadsEveryField(t *testing.T) {
	s, err := Parse([]byte(`{
		"name": "claude",
		"argv": ["claude", "-p", "--model", "{model}", "--output-format", "json"],
		"promptVia": "stdin",
		"model": "sonnet",
		"output": {"format": "json", "field": "result",
			"usageFields": {"inputTokens": "usage.input_tokens", "outputTokens": "usage.output_tokens",
				"cachedTokens": "usage.cache_read_input_tokens", "costUSD": "total_cost_usd"}},
		"env": {"CLAUDE_CODE_MAX_OUTPUT_TOKENS": "8000"},
		"passEnv": ["ANTHROPIC_API_KEY"],
		"dir": "/tmp",
		"timeout": "10m",
		"killGrace": "5s",
		"maxOutputBytes": 1048576,
		"capabilities": {"outputSchema": true, "model": true}
	}`))
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "claude" || s.Model != "sonnet" || s.Timeout != 10*time.Minute || s.KillGrace != 5*time.Second ||
		s.MaxOutputBytes != 1<<20 || !s.Capabilities.OutputSchema || !s.Capabilities.Model ||
		s.Output.UsageFields.CostUSD != "total_cost_usd" || s.PassEnv[0] != "ANTHROPIC_API_KEY" || s.Dir != "/tmp" {
		t.Fatalf("spec read wrongly: %+v", s)
	}
}

func TestNewFillsDefaults(t *testing.T) {
	p, err := New(Spec{Argv: []string{"cat"}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "command" || p.spec.PromptVia != "stdin" || p.spec.Output.Format != "text" ||
		p.spec.KillGrace != 2*time.Second || p.spec.MaxOutputBytes != 4<<20 {
		t.Fatalf("defaults not applied: %+v", p.spec)
	}
	if p.Capabilities() != (Spec{}).Capabilities {
		t.Fatalf("capabilities %+v, want none declared", p.Capabilities())
	}
}

func TestParseSpecErrorsNameTheField(t *testing.T) {
	cases := []struct {
		name, json, want string
	}{
		{"empty", ``, `is empty`},
		{"cut short", `{"argv": ["cat"]`, `it ends before its object is closed`},
		{"not an object", `["claude"]`, `must be a JSON object`},
		{"syntax", `{"argv": [}`, `not valid JSON`},
		{"trailing text", `{"argv": ["cat"]} {}`, `text after its JSON object`},
		{"unknown field", `{"argv": ["cat"], "prompt": "x"}`, `unknown field "prompt"`},
		{"unknown nested field", `{"argv": ["cat"], "output": {"fomat": "json"}}`, `unknown field "fomat"`},
		{"unknown capability", `{"argv": ["cat"], "capabilities": {"tools": true}}`, `unknown field "tools"`},
		{"argv of the wrong type", `{"argv": "claude -p"}`, `"argv" must be an array of strings, not a string`},
		{"argv with a number", `{"argv": ["cat", 1]}`, `"argv" must be an array of strings, not a number`},
		{"nested wrong type", `{"argv": ["cat"], "output": {"field": 3}}`, `"output.field" must be a string, not a number`},
		{"missing argv", `{"name": "x"}`, `"argv" is missing`},
		{"empty command", `{"argv": [""]}`, `"argv" is missing or starts with an empty string`},
		{"placeholder as command", `{"argv": ["{prompt}"], "promptVia": "arg"}`, `cannot be a placeholder`},
		{"bad promptVia", `{"argv": ["cat"], "promptVia": "file"}`, `"promptVia" is "file"`},
		{"arg without placeholder", `{"argv": ["cat"], "promptVia": "arg"}`, `no argument contains {prompt}`},
		{"stdin with placeholder", `{"argv": ["echo", "{prompt}"]}`, `contains {prompt} but "promptVia" is "stdin"`},
		{"model placeholder without model", `{"argv": ["x", "--model={model}"]}`, `uses {model} but "model" is empty`},
		{"model capability without placeholder", `{"argv": ["x"], "capabilities": {"model": true}}`, `declare "model" but no argument contains {model}`},
		{"capability it cannot honour", `{"argv": ["x"], "capabilities": {"toolFilter": true}}`, `declare "toolFilter"`},
		{"bad format", `{"argv": ["x"], "output": {"format": "yaml"}}`, `"output.format" is "yaml"`},
		{"field without json", `{"argv": ["x"], "output": {"field": "result"}}`, `need "output.format": "json"`},
		{"empty path segment", `{"argv": ["x"], "output": {"format": "json", "field": "a..b"}}`, `"output.field" is "a..b"`},
		{"bad usage path", `{"argv": ["x"], "output": {"format": "json", "usageFields": {"costUSD": "cost."}}}`, `"output.usageFields.costUSD"`},
		{"bad timeout", `{"argv": ["x"], "timeout": "10 minutes"}`, `"timeout" is "10 minutes", which is not a duration`},
		{"timeout as number", `{"argv": ["x"], "timeout": 600}`, `"timeout" must be a string, not a number`},
		{"negative timeout", `{"argv": ["x"], "timeout": "-1s"}`, `"timeout" is -1s`},
		{"bad killGrace", `{"argv": ["x"], "killGrace": "soon"}`, `"killGrace" is "soon"`},
		{"negative killGrace", `{"argv": ["x"], "killGrace": "-2s"}`, `"killGrace" is -2s`},
		{"negative maxOutputBytes", `{"argv": ["x"], "maxOutputBytes": -1}`, `"maxOutputBytes" is -1`},
		{"bad env name", `{"argv": ["x"], "env": {"A=B": "c"}}`, `"env" has the name "A=B"`},
		{"bad passEnv name", `{"argv": ["x"], "passEnv": [""]}`, `"passEnv" has the name ""`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.json))
			if err == nil {
				t.Fatalf("Parse(%s) succeeded, want an error containing %q", c.json, c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not contain %q", err, c.want)
			}
		})
	}
}

func TestNewRefusesWhatParseSpecRefuses(t *testing.T) {
	if _, err := New(Spec{Argv: []string{"echo", "{prompt}"}}); err == nil || !strings.Contains(err.Error(), "promptVia") {
		t.Fatalf("New accepted {prompt} with stdin: %v", err)
	}
}

func TestLoadSpecNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(path, []byte(`{"argv": ["cat"], "bogus": 1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), `"bogus"`) {
		t.Fatalf("Load error %v, want one naming the file and the field", err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Fatal("Load of a missing file succeeded")
	}
}
