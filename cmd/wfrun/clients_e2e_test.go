package main

import (
	"bytes"
	"encoding/json"
	"fmt"
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

	"github.com/wfrun/wfrun/internal/testkit/testbin"
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
	t.Parallel()
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

// The scripts the clients' mock models call the workflow tool with, by the
// user's prompt.
var clientScripts = map[string]string{
	"Run the long workflow.":   "export const meta = { name: 'long', description: 'a long value' }\nreturn 'x'.repeat(60000)",
	"Run the broken workflow.": "export const meta = { name: 'broken', description: 'a script error' }\nconst n = 1\nreturn n.nope.deeper",
}

// checkLongResult and checkBrokenResult hold what a model must see of the
// two scripts' results, whichever client renders them.
func checkLongResult(t *testing.T, seen string) {
	t.Helper()
	for _, want := range []string{`workflow \"long\" completed`, "value cut", "xxxxxxxxxx"} {
		if !strings.Contains(seen, want) && !strings.Contains(seen, strings.ReplaceAll(want, `\"`, `"`)) {
			t.Errorf("the model's tool result lacks %q:\n%.3000s", want, seen)
		}
	}
}

func checkBrokenResult(t *testing.T, seen string) {
	t.Helper()
	for _, want := range []string{"SCRIPT_ERROR", "line 3", "call workflow again"} {
		if !strings.Contains(seen, want) {
			t.Errorf("the model's tool result lacks %q:\n%.3000s", want, seen)
		}
	}
}

// responsesStub is a model behind the OpenAI Responses API, as Codex
// speaks it: for a prompt of clientScripts it calls the workflow tool in
// the namespace Codex gives an MCP server's tools, then answers "done."
// once the tool's output is in the input. aimock does not speak Codex's
// namespaced tools, hence this stub.
func responsesStub(t *testing.T) *recorder {
	t.Helper()
	r := &recorder{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.bodies = append(r.bodies, body)
		n := len(r.bodies)
		r.mu.Unlock()
		var in struct {
			Input []struct {
				Type    string `json:"type"`
				Role    string `json:"role"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"input"`
		}
		_ = json.Unmarshal(body, &in)
		prompt, answered := "", false
		for _, item := range in.Input {
			switch {
			case item.Type == "function_call_output":
				answered = true
			case item.Role == "user":
				for _, c := range item.Content {
					if _, ok := clientScripts[strings.TrimSpace(c.Text)]; ok {
						prompt = strings.TrimSpace(c.Text)
					}
				}
			}
		}
		w.Header().Set("Content-Type", "text/event-stream")
		id := fmt.Sprintf("resp_%d", n)
		event := func(v map[string]any) {
			data, _ := json.Marshal(v)
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", v["type"], data)
		}
		event(map[string]any{"type": "response.created", "response": map[string]any{"id": id}})
		item := map[string]any{"type": "message", "id": "msg_1", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": "done."}}}
		if script, ok := clientScripts[prompt]; ok && !answered {
			args, _ := json.Marshal(map[string]string{"script": script})
			item = map[string]any{"type": "function_call", "id": "fc_1", "call_id": "call_1",
				"namespace": "mcp__wfrun", "name": "workflow", "arguments": string(args)}
		}
		event(map[string]any{"type": "response.output_item.done", "item": item})
		event(map[string]any{"type": "response.completed", "response": map[string]any{"id": id,
			"usage": map[string]any{"input_tokens": 10, "output_tokens": 5, "total_tokens": 15}}})
	}))
	t.Cleanup(r.Close)
	return r
}

// codexConfig writes Codex's config.toml in home: the stub as its model
// provider, and wfrun mcp as its MCP server with tool calls approved (under
// approval_policy "never" an MCP tool that asks for approval is refused).
func codexConfig(t *testing.T, home, baseURL, wfrun string) {
	t.Helper()
	cfg := fmt.Sprintf(`model = "gpt-5"
model_provider = "stub"
approval_policy = "never"
sandbox_mode = "read-only"

[model_providers.stub]
name = "stub"
base_url = %q
wire_api = "responses"
env_key = "OPENAI_API_KEY"

[mcp_servers.wfrun]
command = %q
args = ["mcp", "--provider", "fake"]
default_tools_approval_mode = "approve"
`, baseURL+"/v1", wfrun)
	if err := os.MkdirAll(filepath.Join(home, ".codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".codex", "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestClients_CodexShowsTheModelWhatItNeeds(t *testing.T) {
	t.Parallel()
	codex := clientBin(t, "codex")
	stub := responsesStub(t)
	home, err := os.MkdirTemp("", "wfrun-codex-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	codexConfig(t, home, stub.URL, testbin.BuildT(t, "github.com/wfrun/wfrun/cmd/wfrun"))

	ask := func(t *testing.T, prompt string) (tools, output string) {
		t.Helper()
		before := len(stub.requests())
		cmd := exec.Command(codex, "exec", "--skip-git-repo-check", prompt)
		cmd.Dir = home
		cmd.Env = []string{"HOME=" + home, "CODEX_HOME=" + filepath.Join(home, ".codex"), "PATH=" + os.Getenv("PATH"),
			"OPENAI_API_KEY=sk-clients-test"}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("codex exec %q: %v\n%s", prompt, err, out)
		}
		reqs := stub.requests()[before:]
		if len(reqs) < 2 {
			t.Fatalf("codex sent %d requests to the model, want the call and the answer after the tool output\n%s", len(reqs), out)
		}
		var last struct {
			Input []struct {
				Type   string          `json:"type"`
				Output json.RawMessage `json:"output"`
			} `json:"input"`
		}
		if err := json.Unmarshal(reqs[len(reqs)-1], &last); err != nil {
			t.Fatal(err)
		}
		for _, item := range last.Input {
			if item.Type == "function_call_output" {
				var s string
				if json.Unmarshal(item.Output, &s) != nil {
					s = string(item.Output)
				}
				output = s
			}
		}
		var first struct {
			Tools json.RawMessage `json:"tools"`
		}
		_ = json.Unmarshal(reqs[0], &first)
		return string(first.Tools), output
	}

	t.Run("the namespace carries the server's instructions and the whole description", func(t *testing.T) {
		tools, _ := ask(t, "Run the long workflow.")
		for _, want := range []string{`"name":"mcp__wfrun"`, "wfrun runs JavaScript workflows", "ABSENT ON PURPOSE", "DETAILS"} {
			if !strings.Contains(tools, want) {
				t.Errorf("the tools Codex offered lack %q", want)
			}
		}
	})
	t.Run("a cut value shows the summary, the notice and the shown part", func(t *testing.T) {
		_, seen := ask(t, "Run the long workflow.")
		checkLongResult(t, seen)
	})
	t.Run("a script error is unmistakable in the JSON alone", func(t *testing.T) {
		_, seen := ask(t, "Run the broken workflow.")
		checkBrokenResult(t, seen)
		if !strings.Contains(seen, `"isError":true`) {
			t.Errorf("the output Codex showed has no isError: %.2000s", seen)
		}
	})
}

func TestClients_GeminiCLIShowsTheModelWhatItNeeds(t *testing.T) {
	t.Parallel()
	gemini := clientBin(t, "gemini")
	base := strings.TrimSuffix(startAimock(t, filepath.Join(clientsDir, "fixtures", "gemini.json")), "/v1")
	rec := startRecorder(t, base)
	home := t.TempDir()
	settings, _ := json.Marshal(map[string]any{
		"mcpServers": map[string]any{"wfrun": map[string]any{
			"command": testbin.BuildT(t, "github.com/wfrun/wfrun/cmd/wfrun"), "args": []string{"mcp", "--provider", "fake"}, "trust": true}},
		"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
	})
	if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), settings, 0o644); err != nil {
		t.Fatal(err)
	}

	ask := func(t *testing.T, prompt string) string {
		t.Helper()
		before := len(rec.requests())
		cmd := exec.Command(gemini, "-m", "gemini-2.5-flash", "-p", prompt, "--yolo")
		cmd.Dir = home
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GEMINI_API_KEY=sk-clients-test",
			"GOOGLE_GEMINI_BASE_URL=" + rec.URL, "GEMINI_CLI_TRUST_WORKSPACE=true"}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("gemini -p %q: %v\n%s", prompt, err, out)
		}
		for _, body := range rec.requests()[before:] {
			var req struct {
				Contents []struct {
					Parts []struct {
						FunctionResponse *struct {
							Response struct {
								Output string `json:"output"`
								Error  string `json:"error"` // an isError result
							} `json:"response"`
						} `json:"functionResponse"`
					} `json:"parts"`
				} `json:"contents"`
			}
			_ = json.Unmarshal(body, &req)
			for _, c := range req.Contents {
				for _, p := range c.Parts {
					if p.FunctionResponse != nil {
						return p.FunctionResponse.Response.Output + p.FunctionResponse.Response.Error
					}
				}
			}
		}
		t.Fatalf("no function response reached the model\n%s", out)
		return ""
	}

	t.Run("a cut value shows the summary, the notice and the shown part, though the call carried wait_for_previous", func(t *testing.T) {
		// The mock model passes Gemini CLI's own field along, as models do.
		checkLongResult(t, ask(t, "Run the long workflow."))
	})
	t.Run("a script error names its line and what to do", func(t *testing.T) {
		checkBrokenResult(t, ask(t, "Run the broken workflow."))
	})
}

func TestClients_GeminiCLIAnswersAsAnACPChild(t *testing.T) {
	t.Parallel()
	gemini := clientBin(t, "gemini")
	base := strings.TrimSuffix(startAimock(t, filepath.Join(clientsDir, "fixtures", "acp.json")), "/v1")
	dir := t.TempDir()
	home, ws := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
	for _, d := range []string{home, ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The key reaches the agent through the config's passEnv, as
	// docs/tool.md shows; the agent never inherits wfrun's environment.
	cfg, _ := json.Marshal(map[string]any{"agents": map[string]any{"gemini": map[string]any{
		"command": gemini, "args": []string{"--experimental-acp", "-m", "gemini-2.5-flash"},
		"passEnv": []string{"GEMINI_API_KEY"},
		"env":     map[string]string{"GOOGLE_GEMINI_BASE_URL": base, "GEMINI_CLI_TRUST_WORKSPACE": "true", "HOME": home},
	}}})
	cfgPath := filepath.Join(dir, "acp.json")
	script := filepath.Join(dir, "planet.js")
	for path, data := range map[string]string{cfgPath: string(cfg),
		script: "export const meta = { name: 'planet', description: 'one child over ACP' }\nreturn await agent('Name the first planet.')\n"} {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(testbin.BuildT(t, "github.com/wfrun/wfrun/cmd/wfrun"), script, "--provider", "acp:gemini",
		"--acp-config", cfgPath, "--workspace", ws)
	cmd.Env = append(os.Environ(), "GEMINI_API_KEY=sk-clients-test")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("wfrun with Gemini CLI over ACP: %v\n%s", err, out)
	}
	var res struct {
		Value      string `json:"value"`
		StopReason string `json:"stopReason"`
	}
	if err := json.Unmarshal(out, &res); err != nil || res.Value != "Mercury." {
		t.Fatalf("result %s (%v), want the agent's answer \"Mercury.\"", out, err)
	}
}
