package setup_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/agentapi/workspace"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/setup"
	"github.com/wfrun/wfrun/internal/wferr"
)

// env is an environment of the given variables and nothing else.
func env(vars ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(vars); i += 2 {
		m[vars[i]] = vars[i+1]
	}
	return func(k string) string { return m[k] }
}

func TestProviders(t *testing.T) {
	dir := t.TempDir()
	badPrices := filepath.Join(dir, "prices.json")
	if err := os.WriteFile(badPrices, []byte("not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	ws := workspace.Config{Root: dir}
	endpoint := env("OPENAI_API_KEY", "sk-test", "WFRUN_MODEL", "gpt-test")
	cases := []struct {
		name        string
		o           setup.Options
		names       []string // the providers built, in order
		def         string
		notice      bool
		code        wferr.Code // "" no error
		errContains string
	}{
		{name: "nothing configured", o: setup.Options{Getenv: env()}, def: engine.DefaultProvider, notice: true},
		{name: "the environment configures openai", o: setup.Options{Getenv: endpoint, Workspace: ws}, names: []string{"openai"}, def: "openai"},
		{name: "a base URL configures openai", o: setup.Options{Getenv: env(), BaseURL: "http://127.0.0.1:9/v1", Model: "m", Workspace: ws}, names: []string{"openai"}, def: "openai"},
		{name: "another provider named leaves openai out", o: setup.Options{Getenv: endpoint, Provider: "fake"}, def: engine.DefaultProvider, notice: true},
		{name: "openai named without an endpoint", o: setup.Options{Getenv: env(), Provider: "openai", Workspace: ws}, code: wferr.AgentStart, errContains: "the openai provider is not configured"},
		{name: "ACP agents by name", o: setup.Options{Getenv: env(), ACPAgents: []string{"b=agent-b", "a=agent-a"}, Workspace: ws}, names: []string{"acp:b", "acp:a"}, def: engine.DefaultProvider, notice: true},
		{name: "an ACP name given twice", o: setup.Options{Getenv: env(), ACPAgents: []string{"a=x", "a=y"}, Workspace: ws}, code: wferr.InvalidRequest, errContains: "already configured"},
		{name: "a missing command spec", o: setup.Options{Getenv: env(), CommandSpec: filepath.Join(dir, "none.json")}, code: wferr.InvalidRequest, errContains: "--command-spec"},
		{name: "a price table that is not JSON", o: setup.Options{Getenv: endpoint, Prices: badPrices, Workspace: ws}, code: wferr.InvalidRequest, errContains: "--prices"},
		{name: "a missing MCP config is not read without tools", o: setup.Options{Getenv: endpoint, MCPConfig: filepath.Join(dir, "none.json"), Workspace: ws}, names: []string{"openai"}, def: "openai"},
		{name: "a missing MCP config with tools", o: setup.Options{Getenv: endpoint, MCPConfig: filepath.Join(dir, "none.json"), WithTools: true, Workspace: ws}, code: wferr.InvalidRequest, errContains: "--mcp-config"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			set, err := setup.Providers(context.Background(), c.o)
			if c.code != "" {
				if wferr.CodeOf(err) != c.code || !strings.Contains(err.Error(), c.errContains) {
					t.Fatalf("err = %v (code %q), want %s containing %q", err, wferr.CodeOf(err), c.code, c.errContains)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer set.Close()
			var names []string
			for _, p := range set.Providers {
				names = append(names, p.Name())
			}
			if !slices.Equal(names, c.names) {
				t.Errorf("providers %q, want %q", names, c.names)
			}
			if set.Default != c.def || (set.Notice != "") != c.notice {
				t.Errorf("default %q, notice %q; want %q, a notice: %v", set.Default, set.Notice, c.def, c.notice)
			}
		})
	}
}

func TestOpenAIConfigPrefersTheSettingsToTheEnvironment(t *testing.T) {
	cases := []struct {
		name           string
		o              setup.Options
		baseURL, model string
	}{
		{"the environment", setup.Options{Getenv: env("OPENAI_BASE_URL", "http://a", "WFRUN_MODEL", "ma")}, "http://a", "ma"},
		{"the settings", setup.Options{Getenv: env("OPENAI_BASE_URL", "http://a", "WFRUN_MODEL", "ma"), BaseURL: "http://b", Model: "mb"}, "http://b", "mb"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.o.Workspace = workspace.Config{Root: t.TempDir()}
			cfg, err := setup.OpenAIConfig(c.o)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.BaseURL != c.baseURL || cfg.Model != c.model {
				t.Errorf("base URL %q, model %q; want %q, %q", cfg.BaseURL, cfg.Model, c.baseURL, c.model)
			}
		})
	}
}

func TestApplyMakesAWorkingEngine(t *testing.T) {
	set, err := setup.Providers(context.Background(), setup.Options{Getenv: env()})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	var cfg engine.Config
	set.Apply(&cfg)
	eng, err := engine.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(context.Background())
	if !slices.Contains(eng.Providers(), set.Default) {
		t.Errorf("the engine's providers %q lack the default %q", eng.Providers(), set.Default)
	}
}

func TestCloseIsSafeTwiceAndOnNil(t *testing.T) {
	var nilSet *setup.Set
	nilSet.Close()
	set, err := setup.Providers(context.Background(), setup.Options{Getenv: env()})
	if err != nil {
		t.Fatal(err)
	}
	set.Close()
	set.Close()
}
