package main

import (
	"bufio"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/internal/testkit/testbin"
)

// The end-to-end test of the openai provider: the real CLI, against a real
// third-party OpenAI-compatible mock server (@copilotkit/aimock, pinned in
// testdata/aimock and installed by .ci/run with npm ci), with a child that
// calls a tool of a real MCP server (internal/testkit/testmcp, built here) and
// answers in a schema.

const aimockDir = "../../testdata/aimock"

// startAimock starts the mock server on a free loopback port with the given
// fixtures file and returns its base URL. It skips the test when the mock
// server is not installed.
func startAimock(t *testing.T, fixtures string) string {
	t.Helper()
	cli := filepath.Join(aimockDir, "node_modules", "@copilotkit", "aimock", "dist", "cli.js")
	if _, err := os.Stat(cli); err != nil {
		t.Skipf("the mock server is not installed; run: npm ci --prefix testdata/aimock (%v)", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(node, cli, "-h", "127.0.0.1", "-p", strconv.Itoa(port), "-f", fixtures)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on") {
				close(ready)
				break
			}
		}
		for sc.Scan() { // keep draining so the server never blocks on its stdout
		}
	}()
	select {
	case <-ready:
	case <-time.After(20 * time.Second):
		t.Fatal("the mock server did not start within 20s")
	}
	return "http://127.0.0.1:" + strconv.Itoa(port) + "/v1"
}

// buildTestMCP builds the MCP server the children get tools from.
func buildTestMCP(t *testing.T) string {
	t.Helper()
	return testbin.BuildT(t, "github.com/wfrun/wfrun/internal/testkit/testmcp")
}

// calculatorMCPConfig writes an --mcp-config file whose one server, calc,
// is the test MCP server, and returns its path.
func calculatorMCPConfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mcp.json")
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"calc": map[string]any{"command": buildTestMCP(t)}}})
	if err := os.WriteFile(path, cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestEndToEnd_OpenAIProviderWithMCPToolAndSchemaAgainstAMockServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a node server and builds an MCP server")
	}
	baseURL := startAimock(t, filepath.Join(aimockDir, "fixtures", "calculator.json"))
	mcpConfig := calculatorMCPConfig(t)
	transcripts := t.TempDir()

	o := invoke(t, call{
		args: []string{"../../scripts/examples/calculator.js", "--provider", "openai", "--mcp-config", mcpConfig,
			"--transcripts", transcripts, "--events", "-"},
		environ: map[string]string{"OPENAI_BASE_URL": baseURL, "OPENAI_API_KEY": "mock", "WFRUN_MODEL": "gpt-4o-mini"},
	})
	o.wantCode(t, exitCompleted)
	res := o.result(t)
	if compact(t, res.Value) != `{"a":2,"b":3,"sum":5,"correct":true}` {
		t.Fatalf("value = %s", res.Value)
	}
	// Two turns: the tool call (120+18 tokens) and the answer (160+6).
	if res.Usage.InputTokens != 280 || res.Usage.OutputTokens != 24 || res.Usage.CostUSD <= 0 {
		t.Fatalf("usage = %+v", res.Usage)
	}
	if res.Agents.Completed != 1 {
		t.Fatalf("agents = %+v", res.Agents)
	}
	var toolResult bool
	files, _ := filepath.Glob(filepath.Join(transcripts, "*.jsonl"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		toolResult = toolResult || strings.Contains(string(data), "mcp__calc__add")
	}
	if len(files) != 1 || !toolResult {
		t.Fatalf("transcripts %v do not show the tool call", files)
	}
	for _, ev := range readEvents(t, o.stderr) {
		if ev.Type == engine.EventAgentEnd && ev.Outcome != "completed" {
			t.Fatalf("agent.end %+v", ev)
		}
	}
}
