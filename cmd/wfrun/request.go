package main

import (
	"fmt"
	"strings"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/setup"
)

// defaultParent owns the children of a run started from the command line.
const defaultParent = "cli"

// invocation is a command line read into a request and what the engine
// needs (engine/setup reads it; the command line only fills its Inputs).
type invocation = setup.Invocation

// usageError is a bad invocation (exit 2): something wfrun could not read
// or a command line it could not parse.
type usageError = setup.InputError

// precheck is content that was read but fails a check (exit 1, rendered as
// a result): the same kind of error the engine's pre-checks return.
func precheck(code engine.ErrorCode, format string, args ...any) error {
	return &engine.Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// inputsOf are the setup Inputs of the flags in o and of e.
func inputsOf(o *options, e env) setup.Inputs {
	fields := engine.WorkflowStartRequest{SubagentProvider: o.Provider, Parent: o.parent, Model: o.Model}
	o.limitFlags.Apply(&fields)
	return setup.Inputs{Request: o.request, Args: o.args, Meta: o.meta,
		Fields:        fields,
		DefaultParent: defaultParent, FakeRules: o.FakeRules, WorkflowsDirs: o.WorkflowsDirs,
		Providers: setup.Options{Model: o.Model, BaseURL: o.BaseURL, MCPConfig: o.MCPConfig,
			CommandSpec: o.CommandSpec, ACPAgents: o.ACPAgents, ACPConfig: o.ACPConfig,
			Transcripts: o.Transcripts, Prices: o.Prices, Getenv: e.getenv},
		AgentsDirs: o.AgentsDirs, Workspace: o.Workspace, Sandbox: o.Sandbox, SandboxNetwork: o.SandboxNetwork,
		SandboxHide: o.SandboxHide, LandlockOnly: o.LandlockOnly, ModelMap: o.ModelMap,
		OTLPEndpoint: o.otlpEndpoint, Version: version(), RunsDir: o.runsDir, Stdin: e.stdin, Hint: commandsHint}
}

// loadInvocation reads a script run's command line (setup.Load). It
// returns a *usageError or an *engine.Error.
func loadInvocation(o *options, e env) (*invocation, error) {
	in := inputsOf(o, e)
	switch len(o.positional) {
	case 0:
	case 1:
		in.Script = o.positional[0]
	default:
		hint := ""
		if strings.HasPrefix(strings.TrimSpace(o.positional[1]), "{") {
			hint = "; to pass args write --args '" + o.positional[1] + "'"
		}
		msg := fmt.Sprintf("one script at a time: got %s%s", strings.Join(o.positional, ", "), hint)
		return nil, &usageError{Msg: msg}
	}
	return setup.Load(in)
}

// loadToolInvocation reads the flags of the commands that serve models or
// run without a script (mcp, agent, ralph, ui, worker): the limit flags
// become the engine's defaults (setup.LoadServer).
func loadToolInvocation(o *options, e env) (*invocation, error) {
	return setup.LoadServer(inputsOf(o, e))
}

// loadResumeInvocation reads the flags of resume, retry and continue for
// the run id (setup.LoadResume).
func loadResumeInvocation(id string, o *options, e env) (*invocation, error) {
	return setup.LoadResume(inputsOf(o, e), id)
}
