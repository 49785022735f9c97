package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	wftemporal "github.com/wfrun/wfrun/engine/temporal"
)

// The payload store of runs on Temporal (--payloads URL) and wfrun
// temporal gc, which deletes the payloads no history refers to any more
// (docs/scale-out.md).

// gcFlags are the flags of wfrun temporal gc.
type gcFlags struct {
	temporalFlags
	dryRun, asJSON bool
	minAge         time.Duration
}

// temporalGCCommand is `wfrun temporal gc --temporal HOST:PORT
// [--payloads URL] [--min-age D] [--dry-run] [--json]`.
func temporalGCCommand(args []string, e env) int {
	var f gcFlags
	fs := flag.NewFlagSet("wfrun temporal gc", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	f.BindServerFlags(fs)
	text(fs, &f.Payloads, "payloads", wftemporal.PayloadsUsage)
	fs.BoolVar(&f.dryRun, "dry-run", false, "print the payloads it would delete, and delete nothing")
	fs.BoolVar(&f.asJSON, "json", false, "print the counts and the keys deleted as JSON")
	fs.DurationVar(&f.minAge, "min-age", wftemporal.DefaultPayloadMinAge, "keep every payload written more recently than this `DURATION`; 0 collects payloads of any age")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		var b strings.Builder
		b.WriteString("wfrun temporal gc --temporal HOST:PORT [--payloads URL] [--min-age DURATION] [--dry-run] [--json]\n\n" +
			"Deletes the payloads of the store that no history the namespace still lists refers to, and that\n" +
			"were written more than --min-age ago (docs/scale-out.md).\n\nFlags:\n")
		fs.VisitAll(func(f *flag.Flag) { writeFlag(&b, f, "") })
		fmt.Fprint(e.stdout, b.String())
		return exitCompleted
	} else if err != nil {
		return usageFail(e, "temporal gc: %v", err)
	}
	if fs.NArg() > 0 {
		return usageFail(e, "temporal gc takes no arguments; got %q", fs.Arg(0))
	}
	if f.minAge < 0 {
		return usageFail(e, "temporal gc: --min-age %s is negative; give 0 to collect payloads of any age", f.minAge)
	}
	t := f.temporalFlags
	if err := t.Resolve(); err != nil {
		return usageFail(e, "%v", err)
	}
	if t.Server == "" {
		return usageFail(e, "temporal gc needs --temporal HOST:PORT (or --address, or --temporal config): it asks that server which histories still refer to payloads")
	}
	store, err := t.OpenPayloads()
	if err != nil {
		return usageFail(e, "%v", err)
	}
	c, err := wftemporal.DialConnection(t.Conn(), wftemporal.Options{Payloads: store})
	if err != nil {
		notice(e, "%v", err)
		return exitFailed
	}
	defer c.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-e.signals:
			cancel()
		case <-ctx.Done():
		}
	}()
	opts := wftemporal.GCOptions{MinAge: f.minAge, DryRun: f.dryRun}
	if f.minAge == 0 {
		opts.MinAge = -1 // none
	}
	res, err := wftemporal.CollectPayloads(ctx, c, store, opts)
	if err != nil {
		notice(e, "%v", err)
		if f.asJSON {
			return printJSON(e, res, exitFailed)
		}
		return exitFailed
	}
	if f.asJSON {
		return printJSON(e, res, exitCompleted)
	}
	res.WriteReport(e.stdout, f.minAge)
	return exitCompleted
}
