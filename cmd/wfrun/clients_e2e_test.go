package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/wfrun/wfrun/internal/testbin"
)

// The real agent products as MCP clients of wfrun mcp: each is installed
// from npm (pinned in testdata/agentclients, installed by .ci/run), talks
// to a mock model on loopback (aimock, which speaks their APIs) through a
// recorder that keeps every request whole, and runs wfrun mcp --provider
// fake as its MCP server. What a client sends the model in its next
// request is what the model saw of wfrun: the tool's description, and a
// tool result as the client rendered it.

const clientsDir = "../../testdata/agentclients"

// recorder is a reverse proxy in front of the mock model that keeps every
// request body (aimock's own journal cuts bodies at 64 KB, and a client's
// request with wfrun's tools and a long result is larger).
type recorder struct {
	*httptest.Server
	mu     sync.Mutex
	bodies [][]byte
}

func startRecorder(t *testing.T, target string) *recorder {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{}
	proxy := httputil.NewSingleHostReverseProxy(u)
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.bodies = append(r.bodies, body)
		r.mu.Unlock()
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
		proxy.ServeHTTP(w, req)
	}))
	t.Cleanup(r.Close)
	return r
}

// requests returns the bodies received so far.
func (r *recorder) requests() [][]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.bodies...)
}

// clientBin returns the path of an installed client's program, or skips.
func clientBin(t *testing.T, name string) string {
	t.Helper()
	bin, err := filepath.Abs(filepath.Join(clientsDir, "node_modules", ".bin", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("%s is not installed; run: npm ci --prefix testdata/agentclients (%v)", name, err)
	}
	return bin
}

// wfrunMCPConfig writes the mcpServers file that starts wfrun mcp with the
// fake provider and one persona, and returns its path.
func wfrunMCPConfig(t *testing.T, bin string) string {
	t.Helper()
	dir := t.TempDir()
	agents := filepath.Join(dir, "agents")
	if err := os.MkdirAll(agents, 0o755); err != nil {
		t.Fatal(err)
	}
	persona := "---\nname: reviewer\ndescription: Reviews a change for one concern and reports findings\n---\nYou review changes.\n"
	if err := os.WriteFile(filepath.Join(agents, "reviewer.md"), []byte(persona), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"wfrun": map[string]any{
		"command": bin, "args": []string{"mcp", "--provider", "fake", "--agents-dir", agents},
	}}})
	path := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(path, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// anthropicRequest is the part of a Messages API request the tests read.
type anthropicRequest struct {
	Tools []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	} `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// toolResults returns the text of every tool_result block of a request.
func (r anthropicRequest) toolResults() []string {
	var out []string
	for _, m := range r.Messages {
		var blocks []struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type != "tool_result" {
				continue
			}
			var s string
			if json.Unmarshal(b.Content, &s) == nil {
				out = append(out, s)
				continue
			}
			var parts []struct {
				Text string `json:"text"`
			}
			_ = json.Unmarshal(b.Content, &parts)
			var text strings.Builder
			for _, p := range parts {
				text.WriteString(p.Text)
			}
			out = append(out, text.String())
		}
	}
	return out
}

// claudeCodeMaxDescription is where Claude Code cuts an MCP tool's
// description (its default CLAUDE_CODE_MAX_MCP_DESCRIPTION_LENGTH).
const claudeCodeMaxDescription = 4096

func TestClients_ClaudeCodeShowsTheModelWhatItNeeds(t *testing.T) {
	claude := clientBin(t, "claude")
	base := strings.TrimSuffix(startAimock(t, filepath.Join(clientsDir, "fixtures", "anthropic.json")), "/v1")
	rec := startRecorder(t, base)
	cfg := wfrunMCPConfig(t, testbin.BuildT(t, "github.com/wfrun/wfrun/cmd/wfrun"))
	home := t.TempDir()

	ask := func(t *testing.T, prompt string) []anthropicRequest {
		t.Helper()
		before := len(rec.requests())
		cmd := exec.Command(claude, "-p", prompt, "--mcp-config", cfg, "--strict-mcp-config",
			"--allowedTools", "mcp__wfrun__workflow")
		cmd.Dir = home
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "ANTHROPIC_BASE_URL=" + rec.URL,
			"ANTHROPIC_API_KEY=sk-clients-test", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1",
			// MCP tools are offered whole, not behind Claude Code's tool
			// search, so that the request shows their descriptions.
			"ENABLE_TOOL_SEARCH=false"}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("claude -p %q: %v\n%s", prompt, err, out)
		}
		var reqs []anthropicRequest
		for _, body := range rec.requests()[before:] {
			var r anthropicRequest
			if json.Unmarshal(body, &r) == nil && len(r.Messages) > 0 {
				reqs = append(reqs, r)
			}
		}
		if len(reqs) < 2 {
			t.Fatalf("claude sent %d requests to the model, want the call and the answer after the tool result", len(reqs))
		}
		return reqs
	}

	t.Run("the workflow description's first 4096 characters carry the essentials", func(t *testing.T) {
		reqs := ask(t, "Run the long workflow.")
		var desc string
		for _, tl := range reqs[0].Tools {
			if tl.Name == "mcp__wfrun__workflow" {
				desc = tl.Description
			}
		}
		if desc == "" {
			t.Fatal("the model was not offered mcp__wfrun__workflow")
		}
		if n := utf8.RuneCountInString(desc); n > claudeCodeMaxDescription+len("… [truncated]") {
			t.Errorf("the description the model saw is %d characters", n)
		}
		for _, essential := range []string{"export const meta", "Date.now()", "Math.random()", "```js", "RESULT", "reviewer"} {
			if !strings.Contains(desc, essential) {
				t.Errorf("the description the model saw lacks %q:\n%s", essential, desc)
			}
		}
	})

	t.Run("a cut value shows the summary, the notice and the shown part", func(t *testing.T) {
		reqs := ask(t, "Run the long workflow.")
		results := reqs[len(reqs)-1].toolResults()
		if len(results) == 0 {
			t.Fatal("no tool result reached the model")
		}
		seen := results[len(results)-1]
		for _, want := range []string{`workflow \"long\" completed`, "value cut", "xxxxxxxxxx"} {
			if !strings.Contains(seen, want) {
				t.Errorf("the model's tool result lacks %q:\n%.3000s", want, seen)
			}
		}
	})

	t.Run("a script error is unmistakable, with its line and what to do", func(t *testing.T) {
		reqs := ask(t, "Run the broken workflow.")
		results := reqs[len(reqs)-1].toolResults()
		if len(results) == 0 {
			t.Fatal("no tool result reached the model")
		}
		seen := results[len(results)-1]
		for _, want := range []string{"SCRIPT_ERROR", "line 3", "call workflow again"} {
			if !strings.Contains(seen, want) {
				t.Errorf("the model's tool result lacks %q:\n%.3000s", want, seen)
			}
		}
	})
}
