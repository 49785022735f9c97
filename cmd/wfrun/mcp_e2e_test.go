package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wfrun/wfrun/internal/testkit/testbin"
)

// The end-to-end test of wfrun mcp with the official MCP TypeScript client
// (@modelcontextprotocol/sdk, pinned in testdata/mcpclient and installed by
// .ci/run with npm ci). testdata/mcpclient/e2e.mjs drives the real binary
// over stdio and over streamable HTTP with a bearer token: on stdio it
// writes garbage lines to the server's stdin between two calls and sees
// them answered and the session go on; on both it lists the
// tools, calls workflow, gets a script error as isError naming the line,
// receives progress notifications, sees a script's log lines in the
// progress and at the end of the result, runs a saved workflow by name, aborts a call (and sees the run
// cancelled in workflow_list), starts, waits for and cancels a background
// run, and drives two continuable sub-agents: a follow-up sent during a
// turn, an interrupt, a later send that wakes the interrupted one, the
// list, the results, the reports as logging and resource-updated
// notifications, the resource and a close.

const mcpClientDir = "../../testdata/mcpclient"

func TestEndToEnd_MCPServerWithTheOfficialTypeScriptClient(t *testing.T) {
	if testing.Short() {
		t.Skip("builds wfrun and starts node")
	}
	if _, err := os.Stat(filepath.Join(mcpClientDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Skipf("the MCP TypeScript client is not installed; run: npm ci --prefix testdata/mcpclient (%v)", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	dir := t.TempDir()
	bin := testbin.BuildT(t, "github.com/wfrun/wfrun/cmd/wfrun")
	// Slow agents wait to be cancelled; the voices take long enough for
	// their progress notifications to arrive before the result; research
	// turns take long enough for a follow-up to be sent during them, and
	// lingering ones wait to be interrupted.
	rules := filepath.Join(dir, "rules.json")
	if err := os.WriteFile(rules, []byte(`{"rules":[{"match":"^slow","delayMs":30000},{"match":"voice$","delayMs":300},{"match":"^research","delayMs":1500},{"match":"^linger","delayMs":30000}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "e2e.mjs", bin, rules, dir)
	cmd.Dir = mcpClientDir
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "e2e: all steps passed") {
		t.Fatalf("node e2e.mjs: %v\n%s", err, out)
	}
	t.Logf("%s", out)
	for _, transport := range []string{"stdio", "http"} {
		// The panel, the aborted run, the background run and the long
		// value (the refused script has no events): each run's stream is
		// checked on its own.
		if runs := checkRunStreams(t, filepath.Join(dir, transport+".jsonl")); runs < 4 {
			t.Errorf("%s: %d runs in the event log", transport, runs)
		}
	}
}
