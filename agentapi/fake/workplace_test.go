package fake

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/workspace"
	"github.com/wfrun/wfrun/internal/wferr"
)

func TestADryRunRefusesWhatARealRunInItsWorkspaceWould(t *testing.T) {
	plain, err := workspace.New(workspace.Config{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	repoDir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repoDir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	repo, err := workspace.New(workspace.Config{Root: repoDir, Mode: workspace.ReadOnly})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		ws   *workspace.Workspace
		req  agentapi.Request
		code wferr.Code // "" when the child runs
		note string     // a part of the child's note
	}{
		{name: "a worktree outside a repository", ws: plain, req: agentapi.Request{Isolation: "worktree"}, code: wferr.AgentStart},
		{name: "an isolation no provider offers", ws: repo, req: agentapi.Request{Isolation: "container"}, code: wferr.UnsupportedOption},
		{name: "a worktree in a repository runs", ws: repo, req: agentapi.Request{Isolation: "worktree"}},
		{name: "a tool name the workspace lacks is noted", ws: plain, req: agentapi.Request{Tools: []string{"Read", "WebSearch"}},
			note: "tools: WebSearch names no tool this agent has"},
		{name: "Write in a read-only workspace is noted", ws: repo, req: agentapi.Request{Tools: []string{"Write"}}, note: "tools: Write names no tool"},
		{name: "MCP tool names are left to the servers", ws: plain, req: agentapi.Request{Tools: []string{"mcp__calc__add"}}},
		{name: "without a workspace nothing is rehearsed", req: agentapi.Request{Isolation: "container", Tools: []string{"WebSearch"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := New(Options{Workspace: tc.ws})
			req := tc.req
			req.AgentID, req.Prompt = "ag_1", "hello"
			res, err := p.Run(context.Background(), req)
			if tc.code != "" {
				var we *wferr.Error
				if !errors.As(err, &we) || we.Code != tc.code {
					t.Fatalf("Run = %+v, %v; want a %s error", res, err, tc.code)
				}
				return
			}
			if err != nil || res.Status != agentapi.StatusCompleted {
				t.Fatalf("Run = %+v, %v; want it completed", res, err)
			}
			if tc.note == "" && res.Note != "" || !strings.Contains(res.Note, tc.note) {
				t.Errorf("note %q, want %q", res.Note, tc.note)
			}
		})
	}
}
