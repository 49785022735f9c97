package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/modelmap"
	"github.com/wfrun/wfrun/agentapi/persona"
	"github.com/wfrun/wfrun/internal/wferr"
)

// personas writes persona files (name → file content) into a fresh agents
// folder and loads it.
func personas(t *testing.T, files map[string]string) *persona.Set {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".claude", "agents")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name+".md"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := persona.Load([]string{dir})
	if errs := s.Errors(); len(errs) > 0 {
		t.Fatalf("persona files do not load: %v", errs)
	}
	return s
}

const reviewerFile = `---
name: reviewer
description: Reviews one change.
tools: Read, Grep, WebSearch
color: green
---
You review the change you are given and report only real problems, each with its file and line.
`

func echoBox(names ...string) *toolbox {
	return &toolbox{tools: fakeTools(names...), fn: func(_ context.Context, name string, _ json.RawMessage) (string, error) {
		return "ran " + name, nil
	}}
}

func TestAPersonaGivesItsPromptUnderTheWorkerFramingAndOnlyItsTools(t *testing.T) {
	s := newServer(t, callTools(usage{}, call{"c1", "Read", `{"q":"main.go"}`}), reply("no problems", usage{}))
	cfg := testConfig(s)
	cfg.Toolbox = echoBox("Read", "Write", "Grep", "Bash", "mcp__calc__add")
	cfg.Personas = personas(t, map[string]string{"reviewer": reviewerFile})
	cfg.TranscriptDir = t.TempDir()
	res := run(t, mustNew(t, cfg), agentapi.Request{Prompt: "Review the diff.", Persona: "reviewer", AgentID: "ag_r"})

	wantStatus(t, res, agentapi.StatusCompleted, "")
	contains(t, "note", res.Note, "persona reviewer: WebSearch is not available to this agent, so it was dropped")
	for i, r := range s.requests() {
		if got := toolNames(r.body); !reflect.DeepEqual(got, []string{"Read", "Grep"}) {
			t.Errorf("request %d offered %v, want only the persona's [Read Grep]", i+1, got)
		}
		sys := r.body.Messages[0]
		if sys.Role != "system" || !strings.HasPrefix(sys.Content, workerPersona+"\n\n") ||
			!strings.HasSuffix(sys.Content, "report only real problems, each with its file and line.") {
			t.Errorf("request %d system prompt = %q, want the worker framing then the persona's body", i+1, sys.Content)
		}
	}

	// The transcript shows the persona, its system prompt and its tools.
	data, err := os.ReadFile(filepath.Join(cfg.TranscriptDir, "ag_r.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var start, system map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r map[string]any
		_ = json.Unmarshal([]byte(line), &r)
		if r["type"] == "start" {
			start = r
		}
		if m, ok := r["message"].(map[string]any); ok && m["role"] == "system" {
			system = m
		}
	}
	if start["persona"] != "reviewer" || !strings.HasSuffix(start["source"].(string), "reviewer.md") ||
		!reflect.DeepEqual(start["tools"], []any{"Read", "Grep"}) {
		t.Errorf("transcript start = %v, want persona reviewer, its file and tools [Read Grep]", start)
	}
	if !strings.Contains(system["content"].(string), "report only real problems") {
		t.Errorf("transcript system message = %v, want the persona's prompt", system)
	}
}

func TestTheCallsToolsNarrowThePersonaAndNeverWidenIt(t *testing.T) {
	s := newServer(t, reply("ok", usage{}))
	cfg := testConfig(s)
	cfg.Toolbox = echoBox("Read", "Write", "Grep")
	cfg.Personas = personas(t, map[string]string{"reviewer": reviewerFile})
	run(t, mustNew(t, cfg), agentapi.Request{Prompt: "x", Persona: "reviewer", Tools: []string{"Grep", "Write"}})
	if got := toolNames(s.requests()[0].body); !reflect.DeepEqual(got, []string{"Grep"}) {
		t.Errorf("tools = %v, want [Grep]: the call narrows the persona and cannot add Write", got)
	}
}

func TestACallToAToolThePersonaDoesNotHaveIsRefused(t *testing.T) {
	s := newServer(t, callTools(usage{}, call{"c1", "Write", `{}`}), reply("ok", usage{}))
	cfg := testConfig(s)
	box := echoBox("Read", "Write", "Grep")
	called := false
	box.fn = func(context.Context, string, json.RawMessage) (string, error) { called = true; return "", nil }
	cfg.Toolbox = box
	cfg.Personas = personas(t, map[string]string{"reviewer": reviewerFile})
	run(t, mustNew(t, cfg), agentapi.Request{Prompt: "x", Persona: "reviewer"})
	if called {
		t.Error("the toolbox ran Write, which the persona does not have")
	}
	contains(t, "tool result", lastMessage(s.requests()[1].body).Content, `the tool "Write" is not available to this agent; available tools: Grep, Read`)
}

func TestTheBuiltInPersonasWorkWithoutAnyAgentsFolder(t *testing.T) {
	s := newServer(t, reply("found it", usage{}), reply("planned", usage{}))
	cfg := testConfig(s)
	cfg.Toolbox = echoBox("Read", "Write", "Edit", "Glob", "Grep", "Bash")
	p := mustNew(t, cfg)
	run(t, p, agentapi.Request{Prompt: "Where is the router?", Persona: "Explore"})
	run(t, p, agentapi.Request{Prompt: "Plan the change.", Persona: "plan"}) // case differs: still Plan
	for i, r := range s.requests() {
		if got := toolNames(r.body); !reflect.DeepEqual(got, []string{"Read", "Glob", "Grep", "Bash"}) {
			t.Errorf("request %d tools = %v, want the read-only set", i+1, got)
		}
	}
	contains(t, "Plan's system prompt", s.requests()[1].body.Messages[0].Content, "implementation plan")
	if caps := p.Capabilities(); !caps.Persona {
		t.Errorf("capabilities = %+v, want persona: true", caps)
	}
	if names := p.Personas().Names(); !reflect.DeepEqual(names, []string{"Explore", "Plan", "general-purpose"}) {
		t.Errorf("Personas() = %v, want the built-ins", names)
	}
}

func TestAnUnknownPersonaIsUnsupportedOptionNamingTheFoldersAndCloseNames(t *testing.T) {
	s := newServer(t)
	cfg := testConfig(s)
	cfg.Personas = personas(t, map[string]string{"reviewer": reviewerFile})
	_, err := mustNew(t, cfg).Run(context.Background(), agentapi.Request{AgentID: "ag_1", Prompt: "x", Persona: "reviwer"})
	if wferr.CodeOf(err) != wferr.UnsupportedOption || !errors.Is(err, persona.ErrUnknown) {
		t.Fatalf("err = %v, want UNSUPPORTED_OPTION wrapping persona.ErrUnknown", err)
	}
	contains(t, "error", err.Error(), `did you mean "reviewer"?`)
	contains(t, "error", err.Error(), filepath.Join(".claude", "agents"))
	if n := len(s.requests()); n != 0 {
		t.Errorf("requests = %d, want none", n)
	}
}

func TestModelEffortAndTurnsComeFromTheCallThenThePersonaThenTheRun(t *testing.T) {
	files := map[string]string{
		"quick":   "---\nname: quick\nmodel: haiku\neffort: low\nmaxTurns: 1\n---\nBe quick.\n",
		"heir":    "---\nname: heir\nmodel: inherit\n---\nInherit.\n",
		"deep":    "---\nname: deep\neffort: max\n---\nThink.\n",
		"claude":  "---\nname: claude\nmodel: claude-opus-4-1\n---\nA full Claude id.\n",
		"unaware": "---\nname: unaware\nmodel: sonnet\n---\nAn alias nobody mapped.\n",
	}
	models, err := modelmap.ParseFlag("haiku=gpt-4o-mini,claude-opus-4-1=o3")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name        string
		req         agentapi.Request
		model, eff  string
		note        string
		wantTurns   int // requests a child whose model keeps calling tools makes
		maxTurnsRun bool
	}{
		{name: "the persona's model goes through the map", req: agentapi.Request{Persona: "quick"}, model: "gpt-4o-mini", eff: "low"},
		{name: "the call's own model and effort win", req: agentapi.Request{Persona: "quick", Model: "gpt-4.1", Effort: "high"}, model: "gpt-4.1", eff: "high"},
		{name: "the persona's model wins over the run's default", req: agentapi.Request{Persona: "quick", Model: "o4-mini", ModelDefaulted: true}, model: "gpt-4o-mini", eff: "low"},
		{name: "inherit is the run's default", req: agentapi.Request{Persona: "heir", Model: "o4-mini", ModelDefaulted: true}, model: "o4-mini"},
		{name: "inherit without a run default is the provider's model", req: agentapi.Request{Persona: "heir"}, model: "gpt-4o-mini"},
		{name: "max is xhigh", req: agentapi.Request{Persona: "deep"}, model: "gpt-4o-mini", eff: "xhigh"},
		{name: "a full id may be renamed by the map", req: agentapi.Request{Persona: "claude"}, model: "o3"},
		{name: "an unmapped alias falls back with a note", req: agentapi.Request{Persona: "unaware"}, model: "gpt-4o-mini",
			note: "the model alias sonnet is not mapped to a model of this endpoint, so the run's model gpt-4o-mini was used"},
		{name: "a call's alias goes through the map too", req: agentapi.Request{Model: "haiku"}, model: "gpt-4o-mini"},
		{name: "an endpoint's own effort word is sent as written", req: agentapi.Request{Effort: "minimal"}, model: "gpt-4o-mini", eff: "minimal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, reply("ok", usage{}))
			cfg := testConfig(s)
			cfg.Personas = personas(t, files)
			cfg.Models = models
			tc.req.Prompt = "x"
			res := run(t, mustNew(t, cfg), tc.req)
			b := s.requests()[0].body
			if b.Model != tc.model || b.ReasoningEffort != tc.eff {
				t.Errorf("model, reasoning_effort = %q, %q; want %q, %q", b.Model, b.ReasoningEffort, tc.model, tc.eff)
			}
			if tc.note != "" {
				contains(t, "note", res.Note, tc.note)
			}
		})
	}

	t.Run("the persona's maxTurns applies unless the call gives its own", func(t *testing.T) {
		loop := callTools(usage{}, call{"c", "a", `{}`})
		for _, tc := range []struct {
			maxTurns, requests int
		}{{0, 2}, {2, 3}} {
			s := newServer(t, loop, loop, reply("done", usage{}))
			cfg := testConfig(s)
			cfg.Toolbox = echoBox("a")
			cfg.Personas = personas(t, files)
			res := run(t, mustNew(t, cfg), agentapi.Request{Prompt: "x", Persona: "quick", MaxTurns: tc.maxTurns})
			if n := len(s.requests()); n != tc.requests || !strings.Contains(res.Note, "max_turns reached") {
				t.Errorf("call maxTurns %d: %d requests, note %q; want %d requests and max_turns reached", tc.maxTurns, n, res.Note, tc.requests)
			}
		}
	})
}

// refuseEffort answers 400 the way OpenAI refuses reasoning_effort on a
// model without reasoning, and checks what was sent.
func refuseEffort(t *testing.T, want string) step {
	return func(w http.ResponseWriter, r *http.Request, b goopenai.ChatCompletionRequest) {
		if b.ReasoningEffort != want {
			t.Errorf("reasoning_effort = %q, want %q", b.ReasoningEffort, want)
		}
		fail(http.StatusBadRequest, "unsupported_parameter", "Unsupported parameter: 'reasoning_effort' is not supported with this model.")(w, r, b)
	}
}

func expectEffort(t *testing.T, want, text string) step {
	return func(w http.ResponseWriter, r *http.Request, b goopenai.ChatCompletionRequest) {
		if b.ReasoningEffort != want {
			t.Errorf("reasoning_effort = %q, want %q", b.ReasoningEffort, want)
		}
		reply(text, usage{})(w, r, b)
	}
}

func TestARefusedEffortIsRetriedWithoutItOnceAndRemembered(t *testing.T) {
	s := newServer(t, refuseEffort(t, "high"), expectEffort(t, "", "first"), expectEffort(t, "", "second"))
	p := mustNew(t, testConfig(s))
	res := run(t, p, agentapi.Request{Prompt: "x", Effort: "high"})
	wantStatus(t, res, agentapi.StatusCompleted, "")
	contains(t, "note", res.Note, "the endpoint refused reasoning_effort high; sent none")
	// A later child of the same model does not pay for the refusal again.
	res = run(t, p, agentapi.Request{Prompt: "y", Effort: "high"})
	if res.Text != "second" || len(s.requests()) != 3 {
		t.Errorf("second child: %q after %d requests, want \"second\" after 3", res.Text, len(s.requests()))
	}
}

func TestXHighStepsDownToHighThenToNone(t *testing.T) {
	s := newServer(t, refuseEffort(t, "xhigh"), refuseEffort(t, "high"), expectEffort(t, "", "ok"))
	res := run(t, mustNew(t, testConfig(s)), agentapi.Request{Prompt: "x", Effort: "xhigh"})
	wantStatus(t, res, agentapi.StatusCompleted, "")
	contains(t, "note", res.Note, "the endpoint refused reasoning_effort xhigh; used high; the endpoint refused reasoning_effort high; sent none")
}

func TestAnotherRefusalIsNotMistakenForTheEffort(t *testing.T) {
	s := newServer(t, fail(http.StatusBadRequest, "invalid_value", "temperature is out of range"))
	res := run(t, mustNew(t, testConfig(s)), agentapi.Request{Prompt: "x", Effort: "high"})
	wantStatus(t, res, agentapi.StatusFailed, agentapi.FailureTaskFailed)
	if n := len(s.requests()); n != 1 {
		t.Errorf("requests = %d, want 1", n)
	}
}
