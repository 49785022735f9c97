package openai

import (
	"context"
	"fmt"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/tools"
	"github.com/wfrun/wfrun/agentapi/workspace"
	"github.com/wfrun/wfrun/internal/wferr"
)

// IsolationWorktree is the one isolation the provider offers: a git
// worktree of the workspace's repository for the child alone.
const IsolationWorktree = "worktree"

// enterWorkplace gives the child its place to work: the run's workspace,
// narrowed to read-only for a read-only persona, or a fresh worktree of it
// under isolation: 'worktree'; and the built-in tools rooted there. Without
// Config.Workspace a child has neither (and isolation is refused).
func (c *conversation) enterWorkplace(ctx context.Context) error {
	iso := c.req.Isolation
	if iso != "" && iso != IsolationWorktree {
		return wferr.New(wferr.UnsupportedOption, "agent() option isolation must be %q, got %q: the openai provider isolates a child in a git worktree of its own",
			IsolationWorktree, iso)
	}
	base := c.p.cfg.Workspace
	if base == nil {
		if iso != "" {
			return wferr.New(wferr.UnsupportedOption, "isolation: 'worktree' needs a workspace: configure the openai provider's Workspace (the CLI's --workspace)")
		}
		return nil
	}
	ws := base
	if c.persona != nil && c.persona.ReadOnly {
		ws = ws.Narrow(workspace.ReadOnly)
	}
	if iso == IsolationWorktree {
		var wt *workspace.Worktree
		var err error
		if c.reopen != nil {
			// A continued child goes on in the worktree it had.
			wt, err = ws.OpenWorktree(ctx, c.req.AgentID, c.reopen.Base)
		} else {
			wt, err = ws.AddWorktree(ctx, c.req.AgentID)
		}
		if err != nil {
			return err // AGENT_START with a sentence: not a repository, git failed, the worktree is gone
		}
		c.worktree, ws = wt, wt.Workspace()
	}
	set, err := tools.New(ws, tools.Options{})
	if err != nil {
		if c.worktree != nil {
			_, _ = c.worktree.Finish(context.WithoutCancel(ctx))
			c.worktree = nil
		}
		return wferr.Wrap(wferr.AgentStart, err, "the openai provider cannot set up the built-in tools in %s: %v", ws.Root(), err)
	}
	c.ws, c.builtin = ws, set
	return nil
}

// leaveWorkplace closes the built-in tools and ends the child's worktree:
// an unchanged one is removed, one with changes or commits is kept and
// returned for the run to report. It runs even after the child was
// cancelled, with a context that is not. A worktree that cannot be ended is
// kept, with a note saying why.
func (c *conversation) leaveWorkplace(ctx context.Context) *agentapi.Worktree {
	if c.builtin != nil {
		_ = c.builtin.Close()
		c.builtin = nil
	}
	wt := c.worktree
	if wt == nil {
		return nil
	}
	c.worktree = nil
	kept, err := wt.Finish(ctx)
	if err != nil {
		c.notes = append(c.notes, fmt.Sprintf("the worktree %s could not be cleaned up (%v); it is kept", wt.Path(), err))
		return &agentapi.Worktree{Path: wt.Path(), Branch: wt.Branch()}
	}
	return kept
}
