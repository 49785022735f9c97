package temporal

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"time"

	fv "github.com/wfrun/wfrun/internal/flagvalue"
)

// GCFlags are the settings of wfrun temporal gc, as its flags name them:
// the server's (Target.BindServerFlags), --payloads, --min-age and
// --dry-run. Check refuses a bad combination; Collect runs it.
type GCFlags struct {
	Target
	MinAge time.Duration
	DryRun bool
}

// BindFlags defines wfrun temporal gc's flags on fs, each into its field.
func (g *GCFlags) BindFlags(fs *flag.FlagSet) {
	g.BindServerFlags(fs)
	fv.Text(fs, &g.Payloads, "payloads", PayloadsUsage)
	fs.BoolVar(&g.DryRun, "dry-run", false, "print the payloads it would delete, and delete nothing")
	fs.DurationVar(&g.MinAge, "min-age", DefaultPayloadMinAge,
		"keep every payload written more recently than this `DURATION`; 0 collects payloads of any age")
}

// Check resolves the server and opens the payload store; its errors are
// the command line's mistakes.
func (g *GCFlags) Check() error {
	if g.MinAge < 0 {
		return fmt.Errorf("temporal gc: --min-age %s is negative; give 0 to collect payloads of any age", g.MinAge)
	}
	if err := g.Resolve(); err != nil {
		return err
	}
	if g.Server == "" {
		return errors.New("temporal gc needs --temporal HOST:PORT (or --address, or --temporal config): " +
			"it asks that server which histories still refer to payloads")
	}
	_, err := g.OpenPayloads()
	return err
}

// Collect connects, after Check, and runs CollectPayloads with MinAge
// (0: of any age) and DryRun until ctx is done.
func (g *GCFlags) Collect(ctx context.Context) (GCResult, error) {
	store, err := g.OpenPayloads()
	if err != nil {
		return GCResult{}, err
	}
	c, err := DialConnection(g.Conn(), Options{Payloads: store})
	if err != nil {
		return GCResult{}, err
	}
	defer c.Close()
	opts := GCOptions{MinAge: g.MinAge, DryRun: g.DryRun}
	if g.MinAge == 0 {
		opts.MinAge = -1 // none
	}
	return CollectPayloads(ctx, c, store, opts)
}
