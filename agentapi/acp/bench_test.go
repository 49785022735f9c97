package acp

import (
	"context"
	"testing"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/workspace"
)

// BenchmarkAChildOverACP measures what one child costs the provider beyond
// the agent's own work: starting the agent's process, initialize,
// session/new, one turn, and ending the process group.
func BenchmarkAChildOverACP(b *testing.B) {
	ws, err := workspace.New(workspace.Config{Root: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	p, err := New(Config{Name: "bench", Agent: Agent{Command: testAgent}, Workspace: ws})
	if err != nil {
		b.Fatal(err)
	}
	req := agentapi.Request{AgentID: "ag_b_1", Prompt: "@usage 1 1\n@say done"}
	for b.Loop() {
		res, err := p.Run(context.Background(), req)
		if err != nil || res.Status != agentapi.StatusCompleted {
			b.Fatalf("%+v %v", res, err)
		}
	}
}
