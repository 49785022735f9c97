package openai

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestNewNamesTheVariableToSet(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"no endpoint", Config{Model: "m"}, "set OPENAI_API_KEY"},
		{"no model", Config{APIKey: "k"}, "set WFRUN_MODEL or pass --model"},
		{"unknown schema mode", Config{APIKey: "k", Model: "m", JSONSchemaMode: "xml"}, `JSONSchemaMode "xml" is not known`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New(%+v) = %v, want an error containing %q", tc.cfg, err, tc.want)
			}
		})
	}
	if _, err := New(Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m"}); err != nil {
		t.Errorf("a base URL without a key (a local server) is refused: %v", err)
	}
}

func TestConfigFromEnv(t *testing.T) {
	env := map[string]string{"OPENAI_API_KEY": "sk-1", "OPENAI_BASE_URL": "http://h/v1", "WFRUN_MODEL": "m1"}
	cfg := ConfigFromEnv(func(k string) string { return env[k] })
	if cfg.APIKey != "sk-1" || cfg.BaseURL != "http://h/v1" || cfg.Model != "m1" {
		t.Errorf("ConfigFromEnv = %+v", cfg)
	}
}

func TestLoadPrices(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "prices.json")
	os.WriteFile(good, []byte(`{"my-model": {"input": 1, "output": 2}}`), 0o644)
	m, err := LoadPrices(good)
	if err != nil || m["my-model"] != (Price{Input: 1, Output: 2}) {
		t.Errorf("LoadPrices = %v, %v", m, err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"m": {"input": -1}}`), 0o644)
	if _, err := LoadPrices(bad); err == nil || !strings.Contains(err.Error(), "negative") {
		t.Errorf("LoadPrices(negative) = %v, want a negative-price error", err)
	}
	if _, err := LoadPrices(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("LoadPrices(missing) = nil error")
	}
}

func TestPricesMatchDatedSnapshotsOnly(t *testing.T) {
	prices := DefaultPrices()
	for model, want := range map[string]bool{
		"gpt-4o": true, "gpt-4o-2024-08-06": true, "gpt-4o-mini-2024-07-18": true,
		"o3-mini": false, "gpt-5-pro": false, "llama3": false,
	} {
		if _, ok := priceOf(prices, model); ok != want {
			t.Errorf("priceOf(%q) found = %v, want %v", model, ok, want)
		}
	}
	if p, _ := priceOf(prices, "gpt-4o-mini-2024-07-18"); p != prices["gpt-4o-mini"] {
		t.Errorf("gpt-4o-mini snapshot priced as %+v, want gpt-4o-mini's price", p)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"":     0,
		"2":    2 * time.Second,
		"0.5":  500 * time.Millisecond,
		"-1":   0,
		"soon": 0,
		now.Add(3 * time.Second).Format(http.TimeFormat): 3 * time.Second,
		now.Add(-time.Second).Format(http.TimeFormat):    0,
		"86400": maxRetryAfter,
	} {
		if got := parseRetryAfter(in, now); got != want {
			t.Errorf("parseRetryAfter(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestBackoffGrowsWithJitterAndIsCapped(t *testing.T) {
	for n := range 12 {
		d := backoff(100*time.Millisecond, n)
		full := min(100*time.Millisecond<<n, maxRetryDelay)
		if d < full/2 || d > full {
			t.Errorf("backoff(100ms, %d) = %s, want in [%s, %s]", n, d, full/2, full)
		}
	}
}
