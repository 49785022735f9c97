package parent

import (
	"context"
	"fmt"
	"strings"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/openai"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/tool"
)

// Owner owns the runs and sub-agents the parent agent starts, unless
// Config.Tools names another.
const Owner = "agent"

// Prompt is the parent model's task. The openai provider's system prompt
// already says that the final message is the answer; this says what the
// tools are for.
func Prompt(task string) string {
	return `You are the parent agent of wfrun. Your tools: workflow runs a JavaScript workflow you write, which hands tasks to sub-agents (its description is the manual); agent hands one task to one sub-agent and waits for its answer; the subagent_* tools start sub-agents that work in the background while you go on, take follow-ups and report each answer. Use the workflow tool for many similar tasks, independent opinions or stages that feed each other; use agent for a single delegated task; use subagent_start when you want to steer a worker as it goes; answer directly what needs no sub-agent. Collect the answers of the sub-agents you started (subagent_result) before you reply: they are closed when you do. When the tools have given you what you need, reply with the final answer for the user.

Task: ` + task
}

// Tools are the names of the tools the parent model gets: workflow, agent
// and the sub-agent tools (which answer only when Config.Tools has a
// sub-agent manager).
func Tools() []tool.Name {
	return append([]tool.Name{tool.Workflow, tool.Agent}, tool.SubagentNames()...)
}

// Config configures a parent agent.
type Config struct {
	// Model is the parent model's endpoint, model and workspace; its
	// Toolbox is replaced by the parent's tools.
	Model openai.Config
	// Tools are the options of the parent's tool set (engine/tool): its
	// personas, sub-agent manager, event sink, BeforeRun. An empty Owner
	// is Owner.
	Tools tool.Options
	// Requester owns the parent's own request to the model
	// (agentapi.Request.Parent); "" is Owner.
	Requester string
	// ShowScript, when set, is given each workflow script the model
	// writes, framed by "--- workflow script ---" and "--- end of
	// script ---" lines, before it runs (wfrun agent --print-script). It
	// takes the place of Tools.BeforeRun.
	ShowScript func(text string)
}

// Agent is one parent agent: a model and the tool set it calls.
type Agent struct {
	tools     *tool.Set
	model     agentapi.Provider
	requester string
}

// New returns the parent agent of cfg on eng. It fails when the openai
// provider cannot be configured from cfg.Model (no endpoint, no model),
// with the provider's sentence saying what to set.
func New(eng *engine.Engine, cfg Config) (*Agent, error) {
	if cfg.Tools.Owner == "" {
		cfg.Tools.Owner = Owner
	}
	if cfg.Requester == "" {
		cfg.Requester = Owner
	}
	if show := cfg.ShowScript; show != nil {
		cfg.Tools.BeforeRun = func(req engine.WorkflowStartRequest) {
			show(fmt.Sprintf("--- workflow script ---\n%s\n--- end of script ---\n", strings.TrimRight(req.Script, "\n")))
		}
	}
	tools := tool.New(eng, cfg.Tools)
	cfg.Model.Toolbox = tools.Toolbox(Tools()...)
	model, err := openai.New(cfg.Model)
	if err != nil {
		return nil, err
	}
	return &Agent{tools: tools, model: model, requester: cfg.Requester}, nil
}

// Run gives the parent model task and returns its final answer: the
// model's result, completed. A model that could not run, or did not
// complete (cancelled with ctx, out of turns, failed), is an error whose
// sentence says which, with the result as far as there is one.
func (a *Agent) Run(ctx context.Context, task string) (agentapi.Result, error) {
	res, err := a.model.Run(ctx, agentapi.Request{RunID: "parent", AgentID: "parent", Parent: a.requester, Prompt: Prompt(task), Label: "parent"})
	if err != nil {
		return res, fmt.Errorf("the parent agent could not run: %w", err)
	}
	if res.Status != agentapi.StatusCompleted {
		return res, fmt.Errorf("the parent agent did not finish: %s (%s): %s", res.Status, res.Failure, res.Error)
	}
	return res, nil
}

// Close ends the sub-agents the parent started and left open, reason
// saying why to whoever reads them. It does not close the engine or the
// sub-agent manager, which the caller owns.
func (a *Agent) Close(ctx context.Context, reason string) {
	a.tools.CloseSubagents(ctx, reason)
}
