package main

import (
	"cmp"
	"context"
	"flag"

	"github.com/wfrun/wfrun/engine/foreground"
	"github.com/wfrun/wfrun/engine/ui"
)

// uiCmd is `wfrun ui [--addr HOST:PORT] [--auth-token TOKEN] [flags]`:
// the local web page over the run ledger of --runs-dir (engine/ui). It
// serves until a signal comes; the first stops the server and cancels the
// runs that its retry and continue buttons started, a second exits at once.
// The provider and limit flags configure those runs, as for wfrun retry.
func uiCmd(fs *flag.FlagSet) runFunc {
	o := &uiOptions{}
	o.agentFlags.Bind(fs)
	o.limitFlags.Bind(fs)
	bindOTLP(fs, &o.otlpEndpoint)
	bindRunsDir(fs, &o.runsDir)
	text(fs, &o.uiAddr, "addr", "where the page listens, `HOST:PORT` (default 127.0.0.1:7777); any address but loopback needs --auth-token. Its retry and continue buttons run the run in wfrun ui's process, with the provider and limit flags it was given")
	bindAuthToken(fs, &o.authToken)
	return func(e env, positional []string) int {
		o.positional = positional
		return o.run(e)
	}
}

// uiOptions are the flags of wfrun ui.
type uiOptions struct {
	options
	uiAddr, authToken string
}

func (o *uiOptions) run(e env) int {
	if len(o.positional) > 0 {
		return usageFail(e, "ui takes only flags (--addr, --auth-token, --runs-dir, the provider flags); got %q", o.positional[0])
	}
	token := authToken(o.authToken, e)
	if err := ui.CheckBind(cmp.Or(o.uiAddr, ui.DefaultAddr), token); err != nil {
		return usageFail(e, "%v", err)
	}
	in, err := loadToolInvocation(&o.options, e)
	if err != nil {
		return setupFailed(e, err)
	}
	s, err := foreground.Open(context.Background(), in, e.terminal(), foreground.Options{})
	if err != nil {
		notice(e, "%v", err)
		return exitFailed
	}
	eng := s.Engine
	var transcripts []string
	if o.Transcripts != "" {
		transcripts = []string{o.Transcripts}
	}
	srv, err := ui.New(ui.Config{Engine: eng, AuthToken: token, TranscriptDirs: transcripts})
	if err != nil {
		notice(e, "%v", err)
		s.Close()
		return exitFailed
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr, served, err := srv.Start(ctx, o.uiAddr)
	if err != nil {
		notice(e, "%v", err)
		s.Close()
		return exitFailed
	}
	if token != "" {
		notice(e, "serving the runs of %s at http://%s/ (token required: open http://%s/?token=TOKEN once)", eng.Ledger().Path(), addr, addr)
	} else {
		notice(e, "serving the runs of %s at http://%s/", eng.Ledger().Path(), addr)
	}
	return serveUntilSignal(e, s, served, cancel, "the page's server")
}
