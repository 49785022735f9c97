package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/internal/testkit/llamaserver"
	"github.com/wfrun/wfrun/internal/testkit/testbin"
)

// The wfrun binary against llama.cpp's own llama-server on loopback
// (internal/testkit/llamaserver; a long suite, skipped unless
// WFRUN_LLAMA_SERVER is set: docs/testing.md). The server has a small
// context, and serves a tiny generated model whose answers the schema's
// grammar bounds. One child asks a short question in a schema; another
// sends a task longer than the server's context, which the server refuses
// in its own words: the child must fail as context_length, after the one
// trimmed retry, not as task_failed.
func TestEndToEnd_LlamaServer(t *testing.T) {
	srv := llamaserver.Start(t, llamaserver.Options{CtxSize: 1024})
	dir := t.TempDir()
	script := filepath.Join(dir, "llama.js")
	const js = `export const meta = { name: 'llama', description: 'two children against llama-server' }
const OK = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'], additionalProperties: false }
const small = await agent({ prompt: 'Is the sky blue?', schema: OK, tools: [] })
const long = await agent({ prompt: 'Summarise this: ' + 'The quick brown fox jumps over the lazy dog. '.repeat(300) })
return { small: small.status, answer: small.result, inputTokens: small.usage.inputTokens,
  long: long.status, failure: long.failure ?? null, error: long.error ?? null }
`
	if err := os.WriteFile(script, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	transcripts := filepath.Join(dir, "transcripts")
	cmd := exec.Command(testbin.BuildT(t, "github.com/wfrun/wfrun/cmd/wfrun"), script, "--provider", "openai",
		"--transcripts", transcripts)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "WFRUN_RUNS_DIR=" + t.TempDir(), "WFRUN_STATE_DIR=" + t.TempDir(),
		"OPENAI_BASE_URL=" + srv.BaseURL, "WFRUN_MODEL=tiny-random"}
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("wfrun against llama-server: %v\n%s\n%s\nserver log:\n%s", err, out, stderr, srv.Log())
	}
	var res struct {
		Value struct {
			Small       string          `json:"small"`
			Answer      json.RawMessage `json:"answer"`
			InputTokens int64           `json:"inputTokens"`
			Long        string          `json:"long"`
			Failure     *string         `json:"failure"`
			Error       *string         `json:"error"`
		} `json:"value"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("result %s: %v", out, err)
	}
	v := res.Value
	t.Logf("llama-server %s: %s", srv.Version, out)
	var answer struct {
		OK *bool `json:"ok"`
	}
	if v.Small != "completed" || json.Unmarshal(v.Answer, &answer) != nil || answer.OK == nil || v.InputTokens <= 0 {
		t.Errorf("the short child: %s %s with %d input tokens, want completed with {\"ok\": …}", v.Small, v.Answer, v.InputTokens)
	}
	if v.Long != "failed" || v.Failure == nil || *v.Failure != "context_length" {
		t.Errorf("the long child: %s, failure %v, want failed with context_length", v.Long, deref(v.Failure))
	}
	if v.Error == nil || !strings.Contains(*v.Error, "exceeds the available context size") {
		t.Errorf("the long child's error = %q, want the server's own words", deref(v.Error))
	}
	// The refused task, then the one final turn on a trimmed history.
	if n := strings.Count(srv.Log(), "exceeds the available context size"); n < 2 {
		t.Errorf("the server refused %d requests as too long, want 2 (the turn and the trimmed retry)", n)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
