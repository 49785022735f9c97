package acp

import (
	"context"
	"fmt"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/schema"
	"github.com/wfrun/wfrun/agentapi/workspace"
	"github.com/wfrun/wfrun/internal/wferr"
)

// IsolationWorktree is the one isolation the provider offers: a git
// worktree of the workspace's repository for the child alone, which is the
// cwd of its session.
const IsolationWorktree = "worktree"

// Provider runs each child as one session of its own ACP agent process.
// Create it with New; it is safe for concurrent use and owns no goroutines
// or processes between calls to Run.
type Provider struct {
	name  string
	agent Agent // with defaults; never modified after New
	ws    *workspace.Workspace

	schemas schema.Cache // each distinct answer schema compiled once

	started func(pgid int) // test hook: called with each agent's process group
}

var _ agentapi.Provider = (*Provider)(nil)

// New checks cfg and returns its provider. The agent's program is looked
// up when a child starts, not here: a missing program is an AGENT_START
// error from Run.
func New(cfg Config) (*Provider, error) {
	if err := checkName(cfg.Name); err != nil {
		return nil, err
	}
	if err := cfg.Agent.check(fmt.Sprintf("the ACP agent %q", cfg.Name)); err != nil {
		return nil, err
	}
	ws := cfg.Workspace
	if ws == nil {
		var err error
		if ws, err = workspace.New(workspace.Config{}); err != nil {
			return nil, err
		}
	}
	return &Provider{name: ProviderPrefix + cfg.Name, agent: cfg.Agent.withDefaults(), ws: ws}, nil
}

// Name returns "acp:" and the agent's name.
func (p *Provider) Name() string { return p.name }

// Capabilities returns what every ACP agent can honour through wfrun —
// schema (asked for in the prompt, validated, corrected once) and isolation
// (a worktree as the session's cwd) — and what the agent's configuration
// declares of model, effort and depthLimit.
func (p *Provider) Capabilities() agentapi.Capabilities {
	c := p.agent.Capabilities
	return agentapi.Capabilities{
		OutputSchema: true,
		Isolation:    true,
		Model:        c.Model,
		Effort:       c.Effort,
		DepthLimit:   c.DepthLimit,
	}
}

// Run runs one child: it starts the agent, opens one session whose cwd is
// the child's root, sends the prompt as the user turn and takes the agent's
// final message as the answer. It returns only after the agent's process
// group is gone. It returns an error only when the agent cannot be used at
// all — it cannot be started, does not speak ACP, wants a login, or cannot
// set a model the call asks for (AGENT_START, UNSUPPORTED_OPTION) — or the
// request breaks the contract; every other outcome is a Result.
func (p *Provider) Run(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
	if req.Isolation != "" && req.Isolation != IsolationWorktree {
		return agentapi.Result{}, wferr.New(wferr.UnsupportedOption,
			"agent() option isolation must be %q, got %q: the %s provider isolates a child in a git worktree of its own", IsolationWorktree, req.Isolation, p.name)
	}
	var sch *schema.Schema
	if len(req.Schema) > 0 {
		var err error
		if sch, err = p.schemas.Get(req.Schema); err != nil {
			return agentapi.Result{}, wferr.Wrap(wferr.AgentResult, err,
				"the %s provider got a schema that does not compile, which the run side should have refused with UNSUPPORTED_SCHEMA: %v", p.name, err)
		}
	}
	c := &child{p: p, req: req, schema: sch, grace: p.agent.KillGrace}
	if ctx.Err() != nil {
		return c.stopped(ctx, ""), nil
	}
	if err := c.enter(ctx); err != nil {
		if ctx.Err() != nil {
			return c.stopped(ctx, ""), nil
		}
		return agentapi.Result{}, err
	}
	res, err := c.run(ctx)
	res.Worktree = c.leave(context.WithoutCancel(ctx))
	if err == nil {
		res.Note = joinNotes(res.Note, c.notes())
	}
	return res, err
}
