package main

import (
	"context"
	"flag"

	"github.com/wfrun/wfrun/engine/mcpserver"
	wftemporal "github.com/wfrun/wfrun/engine/temporal"
)

// mcpCmd is `wfrun mcp [flags]`: the tools served over MCP, on stdio
// (stdout carries only the protocol) or, with --http, over streamable HTTP.
// It serves until stdin closes (stdio) or a signal comes; the first signal
// closes the sessions and cancels their runs, a second exits at once.
func mcpCmd(fs *flag.FlagSet) runFunc {
	o := &mcpOptions{}
	o.bindTools(fs)
	o.temporalFlags.BindFlags(fs)
	text(fs, &o.httpAddr, "http", "serve streamable HTTP on `ADDR` (127.0.0.1:8765) instead of stdio; any address but loopback needs a token")
	bindAuthToken(fs, &o.authToken)
	return func(e env, positional []string) int {
		o.positional, o.set = positional, given(fs)
		return o.run(e)
	}
}

// mcpOptions are the flags of wfrun mcp.
type mcpOptions struct {
	options
	temporalFlags
	httpAddr, authToken string
}

func (o *mcpOptions) run(e env) int {
	if len(o.positional) > 0 {
		return usageFail(e, "mcp takes no script (the model sends one with each workflow call); got %q", o.positional[0])
	}
	if err := o.ResolveFlags(o.set); err != nil {
		return usageFail(e, "%v", err)
	}
	// $WFRUN_AUTH_TOKEN protects HTTP only; --auth-token on stdio is refused.
	ep := mcpserver.Endpoint{Addr: o.httpAddr, Token: o.authToken, In: e.stdin, Out: e.stdout}
	if ep.Addr != "" {
		ep.Token = authToken(o.authToken, e)
	}
	if err := ep.Check(); err != nil {
		return usageFail(e, "%v", err)
	}
	if o.Isolate == "" {
		// A server runs scripts for many parents: one that crashes or
		// exhausts its VM must not take the others down with it.
		o.Isolate = "process"
	}
	in, err := loadToolInvocation(&o.options, e)
	if err != nil {
		return setupFailed(e, err)
	}
	s, err := openSession(in, &o.options, e)
	if err != nil {
		return setupFailed(e, err) // stdout is the protocol: no JSON there
	}
	subs, err := s.Subagents()
	if err != nil {
		notice(e, "%v", err)
		s.Close()
		return exitFailed
	}
	opts := mcpserver.Options{Version: version(), Personas: toolPersonas(in.Providers.Personas), Subagents: subs}
	if o.httpAddr == "" {
		opts.Owner = mcpserver.StdioOwner
	}
	if o.Server != "" {
		// The workflow tool's runs go to Temporal's workers; this engine
		// checks them first and runs the other tools.
		c, topts, err := o.temporalFlags.Dial()
		if err != nil {
			notice(e, "%v", err)
			s.Close()
			return exitFailed
		}
		defer c.Close()
		tc := wftemporal.NewClient(c, s.Engine, topts)
		opts.Remote, opts.RemoteRuns = tc.Execute, tc.Remote()
	}
	srv := mcpserver.New(s.Engine, opts)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, served, err := srv.Start(ctx, ep)
	if err != nil {
		notice(e, "%v", err)
		s.Close()
		return exitFailed
	}
	if addr != nil {
		auth := "no token"
		if ep.Token != "" {
			auth = "bearer token required"
		}
		notice(e, "serving MCP over streamable HTTP at http://%s/ (%s)", addr, auth)
	}
	return serveUntilSignal(e, s, served, cancel, "the MCP server")
}
