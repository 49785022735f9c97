package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	wftemporal "github.com/wfrun/wfrun/engine/temporal"
	"github.com/wfrun/wfrun/internal/human"
)

// The payload store of runs on Temporal (--payloads URL) and wfrun
// temporal gc, which deletes the payloads no history refers to any more
// (docs/scale-out.md).

// payloadStores are the stores this process opened, by --payloads value:
// a client, a worker and their data converters share one, which lives as
// long as the process.
var payloadStores sync.Map // string → payloadStoreEntry

type payloadStoreEntry struct {
	store wftemporal.SweepableStore
	err   error
}

// openPayloads opens the store of --payloads (a folder, file:///FOLDER,
// s3://BUCKET?endpoint=…), once per process.
func openPayloads(spec string) (wftemporal.SweepableStore, error) {
	if v, ok := payloadStores.Load(spec); ok {
		e := v.(payloadStoreEntry)
		return e.store, e.err
	}
	s, err := wftemporal.OpenPayloadStore(context.Background(), spec)
	if err != nil {
		err = fmt.Errorf("--payloads: %w", err)
	}
	v, _ := payloadStores.LoadOrStore(spec, payloadStoreEntry{s, err})
	e := v.(payloadStoreEntry)
	return e.store, e.err
}

// payloadsUsage is the help of --payloads.
const payloadsUsage = "the store, by `URL`, where payloads over 4 KiB are kept, a reference in the history: a folder (its path or file:///DIR; default ~/.wfrun/temporal-payloads) or s3://BUCKET?endpoint=URL&region=R, with the credentials of the AWS environment (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE); every worker and client of a task queue must share it"

// payloadStore is the store of --payloads for Options, which dialTemporal
// has opened (and refused when it could not be): nil is the default folder.
func payloadStore(spec string) wftemporal.PayloadStore {
	s, err := openPayloads(spec)
	if err != nil {
		return nil
	}
	return s
}

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
	f.bindConnection(fs)
	text(fs, &f.payloads, "payloads", payloadsUsage)
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
	temporal, err := f.conn.resolve(f.temporal)
	if err != nil {
		return usageFail(e, "%v", err)
	}
	if temporal == "" {
		return usageFail(e, "temporal gc needs --temporal HOST:PORT (or --address, or --temporal config): it asks that server which histories still refer to payloads")
	}
	store, err := openPayloads(f.payloads)
	if err != nil {
		return usageFail(e, "%v", err)
	}
	c, err := wftemporal.DialConnection(f.conn.connection(temporal, f.namespace), wftemporal.Options{Payloads: store})
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
	verb := "deleted"
	if f.dryRun {
		verb = "would delete"
		for _, k := range res.Deleted {
			fmt.Fprintf(e.stdout, "would delete %s\n", k)
		}
	}
	fmt.Fprintf(e.stdout, "%s %d of %d payloads (%s); kept %d that the %d histories of the namespace refer to and %d younger than %s\n",
		verb, len(res.Deleted), res.Payloads, human.Bytes(res.DeletedBytes), res.Referenced, res.Histories, res.Recent, f.minAge)
	return exitCompleted
}
