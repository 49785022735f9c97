package modelmap

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func mustParse(t *testing.T, s string) *Map {
	t.Helper()
	m, err := ParseFlag(s)
	if err != nil {
		t.Fatalf("ParseFlag(%q): %v", s, err)
	}
	return m
}

func TestTheFlagFormAndTheJSONFormReadTheSameEntries(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     map[string]Entry
	}{
		{"pairs", "haiku=gpt-4o-mini, sonnet=gpt-4.1,opus=o3",
			map[string]Entry{"haiku": {Model: "gpt-4o-mini"}, "sonnet": {Model: "gpt-4.1"}, "opus": {Model: "o3"}}},
		{"aliases are matched without case", "Sonnet=gpt-4.1", map[string]Entry{"sonnet": {Model: "gpt-4.1"}}},
		{"a model name may hold a colon", "haiku=llama3.1:8b", map[string]Entry{"haiku": {Model: "llama3.1:8b"}}},
		{"json strings and objects", `{"haiku": "gpt-4o-mini", "sonnet": {"model": "gpt-4.1", "contextWindow": 1047576}, "llama3.1": {"contextWindow": 8192}}`,
			map[string]Entry{"haiku": {Model: "gpt-4o-mini"}, "sonnet": {Model: "gpt-4.1", ContextWindow: 1047576}, "llama3.1": {ContextWindow: 8192}}},
		{"a full id may be renamed", "claude-sonnet-4-5=gpt-4.1", map[string]Entry{"claude-sonnet-4-5": {Model: "gpt-4.1"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mustParse(t, tc.in).Entries(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("entries = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAMalformedMapIsRefusedWithASentence(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "--model-map is empty"},
		{"sonnet", `"sonnet" is not NAME=MODEL`},
		{"sonnet=", `"sonnet=" is not NAME=MODEL`},
		{"=gpt-4o", `"=gpt-4o" is not NAME=MODEL`},
		{"sonnet=a,Sonnet=b", `names "Sonnet" twice`},
		{"inherit=gpt-4o", "always means the run's model"},
		{`{"sonnet": 4}`, `"sonnet" is 4`},
		{`{"sonnet": {"model": "x", "window": 3}}`, `unknown field "window"`},
		{`{"sonnet": {"contextWindow": -1}}`, "negative contextWindow"},
		{`{"sonnet": {}}`, "neither a model nor a contextWindow"},
		{`{"sonnet": "a", "SONNET": "b"}`, "twice"},
		{`{"sonnet": `, "not a JSON object"},
	} {
		if _, err := ParseFlag(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseFlag(%q) = %v, want an error containing %q", tc.in, err, tc.want)
		}
	}
}

func TestLoadReadsTheJSONFormAndNamesTheFileOnError(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "models.json")
	os.WriteFile(good, []byte(`{"haiku": "gpt-4o-mini"}`), 0o644)
	if m, err := Load(good); err != nil || m.Entries()["haiku"].Model != "gpt-4o-mini" {
		t.Errorf("Load = %v, %v", m, err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"haiku": 1}`), 0o644)
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("Load(bad) = %v, want an error naming %s", err, bad)
	}
}

func TestResolve(t *testing.T) {
	m := mustParse(t, `{"haiku": "gpt-4o-mini", "sonnet": {"model": "gpt-4.1", "contextWindow": 900000},
		"opus": "inherit", "llama3.1:8b": {"contextWindow": 8192}, "claude-opus-4-1": "o3"}`)
	const run = "gpt-4o"
	for _, tc := range []struct {
		name, requested string
		anthropic       bool
		want            Resolution
		note            string // a substring of the note; "" = no note
	}{
		{"no model is the run's", "", false, Resolution{Model: run, ContextWindow: 128_000}, ""},
		{"inherit is the run's", "inherit", false, Resolution{Model: run, ContextWindow: 128_000}, ""},
		{"default is the run's", "default", false, Resolution{Model: run, ContextWindow: 128_000}, ""},
		{"a mapped alias", "haiku", false, Resolution{Model: "gpt-4o-mini", ContextWindow: 128_000}, ""},
		{"a mapped alias in capitals", "HAIKU", false, Resolution{Model: "gpt-4o-mini", ContextWindow: 128_000}, ""},
		{"the map's window wins", "sonnet", false, Resolution{Model: "gpt-4.1", ContextWindow: 900_000}, ""},
		{"sonnet[1m] follows sonnet's mapping", "sonnet[1m]", false, Resolution{Model: "gpt-4.1", ContextWindow: 900_000}, ""},
		{"opusplan is sonnet for a child", "opusplan", false, Resolution{Model: "gpt-4.1", ContextWindow: 900_000}, ""},
		{"an alias mapped to inherit", "opus", false, Resolution{Model: run, ContextWindow: 128_000}, ""},
		{"a full id passes through", "o4-mini", false, Resolution{Model: "o4-mini", ContextWindow: 200_000}, ""},
		{"a full id may be renamed", "claude-opus-4-1", false, Resolution{Model: "o3", ContextWindow: 200_000}, ""},
		{"a window-only entry", "llama3.1:8b", false, Resolution{Model: "llama3.1:8b", ContextWindow: 8192}, ""},
		{"an unknown model gets the fallback window", "my-local-model", false, Resolution{Model: "my-local-model", ContextWindow: FallbackContextWindow}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := m.Resolve(tc.requested, run, tc.anthropic)
			note := got.Note
			got.Note = ""
			if got != tc.want {
				t.Errorf("Resolve(%q) = %+v, want %+v", tc.requested, got, tc.want)
			}
			if (tc.note == "") != (note == "") || !strings.Contains(note, tc.note) {
				t.Errorf("note = %q, want %q", note, tc.note)
			}
		})
	}
}

func TestAnUnmappedAliasFallsBackToTheRunsModelWithANoteExceptOnAnthropic(t *testing.T) {
	var empty *Map // nil is an empty map
	for _, tc := range []struct {
		name, requested, run string
		anthropic            bool
		want                 Resolution
		note                 string
	}{
		{"openai endpoint", "sonnet", "gpt-4o-mini", false, Resolution{Model: "gpt-4o-mini", ContextWindow: 128_000},
			"the model alias sonnet is not mapped to a model of this endpoint, so the run's model gpt-4o-mini was used; map it with --model-map sonnet=MODEL"},
		{"opusplan names sonnet in its hint", "opusplan", "gpt-4o-mini", false, Resolution{Model: "gpt-4o-mini", ContextWindow: 128_000},
			"--model-map sonnet=MODEL"},
		{"anthropic endpoint", "haiku", "claude-sonnet-4-5", true, Resolution{Model: "claude-haiku-4-5", ContextWindow: 200_000}, ""},
		{"anthropic [1m]", "sonnet[1m]", "claude-sonnet-4-5", true, Resolution{Model: "claude-sonnet-4-5", ContextWindow: 1_000_000}, ""},
		{"the run's model is an alias too", "haiku", "sonnet", false, Resolution{Model: "sonnet", ContextWindow: FallbackContextWindow}, ""},
		{"no run model", "opus", "", false, Resolution{Model: "", ContextWindow: FallbackContextWindow}, "no model to fall back to"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := empty.Resolve(tc.requested, tc.run, tc.anthropic)
			note := got.Note
			got.Note = ""
			if got != tc.want {
				t.Errorf("Resolve = %+v, want %+v", got, tc.want)
			}
			if (tc.note == "") != (note == "") || !strings.Contains(note, tc.note) {
				t.Errorf("note = %q, want %q", note, tc.note)
			}
		})
	}
}

func TestMergeLetsTheSecondMapWin(t *testing.T) {
	got := Merge(mustParse(t, "haiku=a,sonnet=b"), mustParse(t, "sonnet=c")).Entries()
	want := map[string]Entry{"haiku": {Model: "a"}, "sonnet": {Model: "c"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Merge = %v, want %v", got, want)
	}
	if len(Merge(nil, nil).Entries()) != 0 {
		t.Error("Merge(nil, nil) is not empty")
	}
}

func TestIsAnthropic(t *testing.T) {
	for url, want := range map[string]bool{
		"https://api.anthropic.com/v1":  true,
		"https://API.Anthropic.com/v1/": true,
		"https://api.openai.com/v1":     false,
		"http://127.0.0.1:8080/v1":      false,
		"https://anthropic.com.evil/v1": false,
		"::not a url":                   false,
	} {
		if got := IsAnthropic(url); got != want {
			t.Errorf("IsAnthropic(%q) = %v, want %v", url, got, want)
		}
	}
}

func TestDefaultContextWindowPicksTheLongestFamily(t *testing.T) {
	for model, want := range map[string]int{
		"gpt-4o-mini": 128_000, "gpt-4o-2024-08-06": 128_000, "gpt-4": 8_192, "gpt-4-turbo": 128_000,
		"gpt-4.1-nano": 1_047_576, "gpt-5-mini": 400_000, "o3-mini": 200_000, "claude-haiku-4-5": 200_000,
		"openai/gpt-4o": 128_000, "deepseek-chat": 128_000, "llama3.1": FallbackContextWindow, "": FallbackContextWindow,
	} {
		if got := DefaultContextWindow(model); got != want {
			t.Errorf("DefaultContextWindow(%q) = %d, want %d", model, got, want)
		}
	}
}

func TestEffortLevels(t *testing.T) {
	for in, want := range map[string]Effort{"": "", "low": EffortLow, "Medium": EffortMedium, " high ": EffortHigh,
		"xhigh": EffortXHigh, "max": EffortXHigh} {
		got, err := ParseEffort(in)
		if err != nil || got != want {
			t.Errorf("ParseEffort(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseEffort("ultra"); err == nil || !strings.Contains(err.Error(), "use low, medium, high or xhigh") {
		t.Errorf("ParseEffort(ultra) = %v, want an error listing the levels", err)
	}
	if next, ok := EffortXHigh.StepDown(); !ok || next != EffortHigh {
		t.Errorf("xhigh steps down to %q, %v; want high", next, ok)
	}
	if _, ok := EffortHigh.StepDown(); ok {
		t.Error("high steps down to another level; want none")
	}
	if EffortXHigh.ReasoningEffort() != "xhigh" {
		t.Error("xhigh is not sent as xhigh")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"haiku=a,sonnet=b", `{"sonnet": {"model": "x", "contextWindow": 5}}`, "=", "{", `{"a":"b","A":"c"}`, ",,,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseFlag(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error without a sentence")
			}
			return
		}
		for k, e := range m.Entries() {
			if strings.TrimSpace(k) == "" || (e.Model == "" && e.ContextWindow == 0) || e.ContextWindow < 0 {
				t.Fatalf("ParseFlag(%q) kept a bad entry %q: %+v", s, k, e)
			}
		}
		_ = m.Resolve("sonnet", "run", false)
	})
}
