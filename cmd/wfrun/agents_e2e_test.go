package main

import (
	"encoding/json"
	"github.com/wfrun/wfrun/internal/testkit/gittest"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// gitWorkspace copies the folder src into a fresh git repository with one
// commit and returns its path, so that a test works in a real workspace.
func gitWorkspace(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	gittest.Commit(t, dir, "the workspace")
	return dir
}

// journalEntry is one request the mock server recorded.
type journalEntry struct {
	Path string `json:"path"`
	Body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	} `json:"body"`
}

// journal reads the mock server's request journal.
func journal(t *testing.T, baseURL string) []journalEntry {
	t.Helper()
	resp, err := http.Get(strings.TrimSuffix(baseURL, "/v1") + "/__aimock/journal")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var entries []journalEntry
	if err := json.Unmarshal(data, &entries); err != nil {
		t.Fatalf("journal: %v\n%s", err, data)
	}
	return entries
}

func TestEndToEnd_APersonaReadsARealFileOfAGitWorkspaceAndAnswersInASchema(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a node server")
	}
	baseURL := startAimock(t, filepath.Join(aimockDir, "fixtures", "reviewer.json"))
	ws := gitWorkspace(t, "testdata/review-workspace")

	o := invoke(t, call{
		args:    []string{"testdata/review.js", "--provider", "openai", "--workspace", ws, "--events", "-"},
		environ: map[string]string{"OPENAI_BASE_URL": baseURL, "OPENAI_API_KEY": "mock", "WFRUN_MODEL": "gpt-4o-mini"},
	})
	o.wantCode(t, exitCompleted)
	res := o.result(t)
	if got := compact(t, res.Value); got != `{"findings":[{"line":7,"issue":"DeleteUser removes a user without checking the caller's role"}]}` {
		t.Fatalf("value = %s", got)
	}
	readEvents(t, o.stderr)

	reqs := journal(t, baseURL)
	if len(reqs) != 2 {
		t.Fatalf("the mock server saw %d requests, want the tool call and the answer", len(reqs))
	}
	first := reqs[0].Body
	if len(first.Messages) == 0 || first.Messages[0].Role != "system" ||
		!strings.Contains(first.Messages[0].Content, "You are the authorization reviewer.") {
		t.Fatalf("the child's system prompt is not the persona's body: %+v", first.Messages)
	}
	var tools []string
	for _, tl := range first.Tools {
		tools = append(tools, tl.Function.Name)
	}
	slices.Sort(tools)
	if !slices.Equal(tools, []string{"Grep", "Read"}) {
		t.Fatalf("the child was offered %v, want only the persona's Read and Grep", tools)
	}
	// The second request carries what Read returned: the real file, numbered.
	var toolResult string
	for _, m := range reqs[1].Body.Messages {
		if m.Role == "tool" {
			toolResult = m.Content
		}
	}
	if !strings.Contains(toolResult, "func DeleteUser(") || !strings.Contains(toolResult, "7") {
		t.Fatalf("the Read result is not the workspace's file:\n%s", toolResult)
	}
}

func TestCheck_ScriptsForClaudeCodePassWithTheOpenAIProviderWhenThePersonasExist(t *testing.T) {
	ws := gitWorkspace(t, t.TempDir())
	agents := filepath.Join(ws, ".claude", "agents")
	if err := os.CopyFS(agents, os.DirFS("../../testdata/shared/agents")); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "WFRUN_MODEL": "gpt-4o-mini"}
	script := "../../testdata/shared/persona-audit.js"

	o := invoke(t, call{args: []string{"check", script, "--provider", "openai", "--workspace", ws}, environ: env})
	o.wantCode(t, exitCompleted)
	var ok struct {
		OK       bool     `json:"ok"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(o.stdout), &ok); err != nil || !ok.OK {
		t.Fatalf("check: %v\n%s", err, o.stdout)
	}
	// The aliases no model map resolves are named, with what happens instead.
	joined := strings.Join(ok.Warnings, "\n")
	for _, alias := range []string{"sonnet", "opus"} {
		if !strings.Contains(joined, alias) {
			t.Errorf("no warning about the unmapped alias %s in %q", alias, ok.Warnings)
		}
	}

	// With the aliases mapped there is nothing to warn about.
	o = invoke(t, call{args: []string{"check", script, "--provider", "openai", "--workspace", ws,
		"--model-map", "haiku=gpt-4o-mini,sonnet=gpt-4.1,opus=o3"}, environ: env})
	o.wantCode(t, exitCompleted)
	if strings.Contains(o.stdout, "falls back") {
		t.Errorf("warnings despite a model map:\n%s", o.stdout)
	}

	// Without the persona files, the first literal agentType is refused at
	// its line, naming the folders searched.
	bare := gitWorkspace(t, t.TempDir())
	o = invoke(t, call{args: []string{"check", script, "--provider", "openai", "--workspace", bare}, environ: env})
	o.wantCode(t, exitFailed)
	var bad struct {
		ErrorCode string `json:"errorCode"`
		Error     string `json:"error"`
		ErrorLine int    `json:"errorLine"`
	}
	if err := json.Unmarshal([]byte(o.stdout), &bad); err != nil {
		t.Fatal(err)
	}
	if bad.ErrorCode != "UNSUPPORTED_OPTION" || bad.ErrorLine != 21 || !strings.Contains(bad.Error, "route-auditor") ||
		!strings.Contains(bad.Error, filepath.Join(".claude", "agents")) {
		t.Fatalf("check without personas: %+v", bad)
	}
}
