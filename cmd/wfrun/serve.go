package main

import (
	"context"
	"flag"
	"time"

	"github.com/wfrun/wfrun/engine"
)

// The commands that serve models rather than run one script (wfrun mcp,
// wfrun agent) share how they are configured: the provider flags as for
// wfrun itself, and the limit flags as the engine's defaults for every run
// the models start.

// loadToolInvocation reads the flags of wfrun mcp and wfrun agent: there
// is no script, and --max-agents, --concurrency, --timeout,
// --agent-timeout and --budget-tokens become the engine's defaults.
func loadToolInvocation(o *options, e env) (*invocation, error) {
	in, err := readInvocation(o, e, applyRequestFlags, readFakeRules, readWorkflowsDir)
	if err != nil {
		return nil, err
	}
	req := in.req
	in.engineConfig = func(cfg *engine.Config) {
		if req.SubagentProvider != "" {
			cfg.DefaultProvider = req.SubagentProvider
		}
		cfg.MaxTotalAgents = req.MaxTotalAgents
		cfg.Concurrency = req.Concurrency
		cfg.BudgetTokens = req.BudgetTokens
		cfg.MaxMemory = req.MaxMemoryBytes
		cfg.MaxRunFolder = req.MaxRunFolderBytes
		cfg.Isolate = req.Isolate
		cfg.RunTimeout = time.Duration(req.TimeoutMs) * time.Millisecond
		cfg.AgentTimeout = time.Duration(req.AgentTimeoutMs) * time.Millisecond
	}
	return in, nil
}

// bindTools binds the flags of the commands that serve models or run
// scripts in the foreground without a script of their own (mcp, agent,
// ralph, resume, retry, continue): the sub-agent, limit, output and
// runs-folder flags.
func (o *options) bindTools(fs *flag.FlagSet) {
	o.agentFlags.Bind(fs)
	o.limitFlags.Bind(fs)
	bindEvents(fs, &o.events)
	bindOTLP(fs, &o.otlpEndpoint)
	bindRunsDir(fs, &o.runsDir)
}

func bindAuthToken(fs *flag.FlagSet, p *string) {
	text(fs, p, "auth-token", "every request must carry Authorization: Bearer `TOKEN`, or gets 401 (default $WFRUN_AUTH_TOKEN, which keeps it out of the process list); wfrun ui also takes it from a ?token=TOKEN login, which sets a cookie")
}

// authToken is --auth-token, else $WFRUN_AUTH_TOKEN (which keeps the token
// out of the process list).
func authToken(token string, e env) string {
	if token != "" {
		return token
	}
	return e.getenv("WFRUN_AUTH_TOKEN")
}

// serveUntilSignal waits for served, the end of a server that cancel
// stops. The first signal cancels it (its runs are cancelled with it) and
// waits on; a second one gives up waiting: then finished is false, and the
// caller exits at once, closing nothing more. A server error for which
// quiet is false is noticed as "<what> stopped: …" and exits 1.
func serveUntilSignal(e env, served <-chan error, cancel context.CancelFunc, what string, quiet func(error) bool) (code int, finished bool) {
	code = exitCompleted
	for {
		select {
		case err := <-served:
			if err != nil && code == exitCompleted && !quiet(err) {
				notice(e, "%s stopped: %v", what, err)
				code = exitFailed
			}
			return code, true
		case sig := <-e.signals:
			if code == exitInterrupted {
				notice(e, "second %s: exiting without waiting for the runs", signalName(sig))
				return exitInterrupted, false
			}
			code = exitInterrupted
			cancel()
		}
	}
}
