package main

import (
	"flag"

	wftemporal "github.com/wfrun/wfrun/engine/temporal"
	"github.com/wfrun/wfrun/internal/interrupt"
)

// temporalGCCmd is `wfrun temporal gc --temporal HOST:PORT [--payloads
// URL] [--min-age D] [--dry-run] [--json]`: it deletes the payloads of the
// store (--payloads URL) that no history refers to any more
// (engine/temporal's GCFlags, docs/scale-out.md).
func temporalGCCmd(fs *flag.FlagSet) runFunc {
	var f wftemporal.GCFlags
	var asJSON bool
	f.BindFlags(fs)
	fs.BoolVar(&asJSON, "json", false, "print the counts and the keys deleted as JSON")
	return func(e env, positional []string) int {
		if len(positional) > 0 {
			return usageFail(e, "temporal gc takes no arguments; got %q", positional[0])
		}
		if err := f.Check(); err != nil {
			return usageFail(e, "%v", err)
		}
		ctx, cancel := interrupt.Context(e.signals)
		defer cancel()
		res, err := f.Collect(ctx)
		code := exitCompleted
		if err != nil {
			notice(e, "%v", err)
			code = exitFailed
		}
		if asJSON {
			return printJSON(e, res, code)
		}
		if err == nil {
			res.WriteReport(e.stdout, f.MinAge)
		}
		return code
	}
}
