package main

import (
	"context"
	"flag"
	"os"

	"github.com/wfrun/wfrun/engine/foreground"
)

// The commands that serve models rather than run one script (wfrun mcp,
// wfrun agent) share how they are configured: the provider flags as for
// wfrun itself, and the limit flags as the engine's defaults for every run
// the models start.

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
// stops, then closes s. The first signal cancels the server (its runs are
// cancelled with it) and waits on; a second one gives up waiting and
// abandons s, and the caller exits at once. A server error is noticed as
// "<what> stopped: …" and exits 1 (the servers' Start says a normal end
// as nil).
func serveUntilSignal(e env, s *foreground.Session, served <-chan error, cancel context.CancelFunc, what string) int {
	out := foreground.Wait(e.terminal(), nil, "the runs", served, func(os.Signal) { cancel() })
	if out.Abandoned != nil {
		s.Abandon()
		return exitInterrupted
	}
	defer s.Close()
	switch {
	case out.Interrupted != nil:
		return exitInterrupted
	case out.Value != nil:
		notice(e, "%s stopped: %v", what, out.Value)
		return exitFailed
	}
	return exitCompleted
}
