package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine"
)

// agentScript runs the agent tool's one sub-agent: a run like any other,
// with the same providers, limits, events and registry, whose request is
// the tool's input passed as args (so that its options are checked when
// the call runs, against the provider's capabilities).
const agentScript = `export const meta = { name: 'agent', description: 'One sub-agent, started by the agent tool' }
return await agent(args)
`

// Envelope is the agent tool's structured content: the object form of
// agent() (see docs/script-api.md), with the run that carried it.
type Envelope struct {
	RunID   string               `json:"runId"`
	Result  json.RawMessage      `json:"result"`
	Status  agentapi.Status      `json:"status"`
	AgentID string               `json:"agentId"`
	Label   string               `json:"label"`
	Usage   agentapi.Usage       `json:"usage"`
	Error   string               `json:"error,omitempty"`
	Failure agentapi.FailureKind `json:"failure,omitempty"`
}

// agent is the agent tool.
func (s *Set) agent(ctx context.Context, in AgentInput, progress func(Progress)) Result {
	if strings.TrimSpace(in.Prompt) == "" {
		return inputError(errorf(engine.CodeInvalidRequest, "the agent tool needs a prompt: the whole task, in words, with every fact the sub-agent needs"))
	}
	if err := checkSchemaRoot(in.Schema); err != nil {
		return inputError(err)
	}
	args, err := json.Marshal(in)
	if err != nil {
		return inputError(errorf(engine.CodeInvalidRequest, "the agent tool's input cannot be passed on: %v", err))
	}
	req := engine.WorkflowStartRequest{Script: agentScript, ScriptName: "agent.js", Args: args, Parent: s.opts.Owner,
		OnEvent: s.sink(newTracker(progress))}
	run, err := s.eng.Start(ctx, req)
	if err != nil {
		return agentFailure(engine.FailedResult("", err))
	}
	s.track(run)
	res := run.Wait()
	if res.StopReason != engine.StopCompleted {
		return agentFailure(res)
	}
	var env Envelope
	if err := json.Unmarshal(res.Value, &env); err != nil {
		return inputError(errorf(engine.CodeInternal, "wfrun bug: the agent tool's run returned %s, not an envelope: %v", res.Value, err))
	}
	env.RunID = res.RunID
	if env.Status != agentapi.StatusCompleted {
		return Result{
			Text:    fmt.Sprintf("the sub-agent did not complete: %s (%s): %s", env.Status, env.Failure, env.Error),
			IsError: true, Structured: env, RunID: res.RunID,
		}
	}
	var text string
	if json.Unmarshal(env.Result, &text) != nil {
		text, _ = s.capValue(env.Result, res.RunID) // a schema answer
	} else if n := utf8.RuneCountInString(text); n > s.opts.MaxResultChars {
		text = string([]rune(text)[:s.opts.MaxResultChars]) + fmt.Sprintf("\n… [answer cut: it is %d characters and this shows the first %d. The whole answer is in the resource %s (read it with MCP resources/read).]",
			n, s.opts.MaxResultChars, ResultURI(res.RunID))
	}
	return Result{Text: text, Structured: env, RunID: res.RunID}
}

// agentFailure renders a run of the agent tool that did not complete: the
// sub-agent was refused (an option the provider cannot honour, a bad
// schema) or the provider is broken. Positions point into the tool's own
// script, so they are left out.
func agentFailure(res engine.WorkflowResult) Result {
	text := fmt.Sprintf("the agent tool failed: %s: %s", res.ErrorCode, res.Error)
	if res.StopReason == engine.StopCancelled {
		text = fmt.Sprintf("the agent tool was cancelled: %s", res.Error)
	}
	res.ErrorLine, res.ErrorColumn = 0, 0
	return Result{Text: text, IsError: true, Structured: Output{WorkflowResult: res}, RunID: res.RunID}
}
