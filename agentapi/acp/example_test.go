package acp

import (
	"context"
	"fmt"
	"os"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/workspace"
)

// A provider for one ACP agent, and one child run on it. Here the agent is
// wfrun's scripted test agent; for Claude Code it would be
// Agent{Command: "npx", Args: []string{"-y", "@zed-industries/claude-code-acp"}}.
func ExampleNew() {
	dir, _ := os.MkdirTemp("", "acp-example-")
	defer os.RemoveAll(dir)
	ws, err := workspace.New(workspace.Config{Root: dir, Mode: workspace.ReadOnly})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := New(Config{Name: "scripted", Agent: Agent{Command: testAgent}, Workspace: ws})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := p.Run(context.Background(), agentapi.Request{AgentID: "ag_example_1",
		Prompt: "@usage 12 3\n@permit edit notes.md\n@report"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Name(), res.Status)
	fmt.Println(res.Text)
	fmt.Println(res.Usage.InputTokens, res.Usage.OutputTokens)
	// Output:
	// acp:scripted completed
	// permit edit notes.md: reject_once
	// 12 3
}
