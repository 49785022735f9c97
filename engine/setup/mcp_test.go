package setup_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi/workspace"
	"github.com/wfrun/wfrun/engine/setup"
	"github.com/wfrun/wfrun/internal/testkit/testbin"
	"github.com/wfrun/wfrun/internal/wferr"
)

// The MCP servers Providers starts for openai's children stop with
// Set.Close, and when openai cannot be built after they started, before
// Providers returns its error: nothing is left running.
func TestTheMCPServersStopWithTheSetOrTheError(t *testing.T) {
	if _, ok := testbin.Children(); !ok {
		t.Skip("no /proc to list child processes")
	}
	server := testbin.BuildT(t, "github.com/wfrun/wfrun/internal/testkit/testmcp")
	dir := t.TempDir()
	config := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(config, []byte(`{"mcpServers": {"calc": {"command": "`+server+`"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		env  func(string) string
		code wferr.Code // "" built
	}{
		{"built, then closed", env("OPENAI_API_KEY", "k", "WFRUN_MODEL", "m"), ""},
		{"openai cannot be built", env("OPENAI_API_KEY", "k"), wferr.AgentStart}, // no model
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			set, err := setup.Providers(context.Background(), setup.Options{Provider: "openai", Getenv: c.env,
				MCPConfig: config, WithTools: true, Workspace: workspace.Config{Root: dir}})
			if wferr.CodeOf(err) != c.code {
				t.Fatalf("err = %v, want code %q", err, c.code)
			}
			if err == nil {
				if len(testbin.LiveChildren(0)) == 0 {
					t.Fatal("the MCP server is not running while the set is open")
				}
				set.Close()
			}
			if live := testbin.LiveChildren(10 * time.Second); len(live) > 0 {
				t.Fatalf("still running: %v", live)
			}
		})
	}
}
