package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run parses the flags, measures and prints the report on stdout
// (progress on stderr). It returns 0 when every phase finished (whether or
// not the goal was met), 1 when one failed, 2 for bad flags.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("scalebench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	smoke := fs.Bool("smoke", false, "tiny sizes: check that it runs, in seconds (the figures mean nothing)")
	dev := fs.String("dev", os.Getenv("WFRUN_TEMPORAL_DEV"), "the wfrun-temporal dev server binary (default $WFRUN_TEMPORAL_DEV)")
	wfrun := fs.String("wfrun", "", "the wfrun binary whose `wfrun worker` is measured (default: build ./cmd/wfrun of this repository)")
	runs := fs.Int("runs", 0, "runs per phase (default 120)")
	slots := fs.Int("max-concurrent-agents", 0, "--max-concurrent-agents of every worker (default 8)")
	delay := fs.Duration("delay", 0, "how long the endpoint waits before each answer (default 1s)")
	rounds := fs.Int("rounds", 0, "rounds of one worker then two (default 1)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: go run ./engine/temporal/internal/scalebench [-smoke] [flags]\n\n"+
			"Runs N runs of a 4-agent script against one wfrun worker and then two, on the Temporal dev\n"+
			"server, with a loopback model endpoint that waits before every answer, and prints the runs\n"+
			"per minute of each and their ratio (docs/benchmarks.md).\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "scalebench takes no arguments, got %q\n", fs.Args())
		return 2
	}
	if *dev == "" {
		fmt.Fprintln(stderr, "scalebench needs the dev server: build it (cd engine/temporal/server && GOTOOLCHAIN=go1.27.3 go build -o /tmp/wfrun-temporal ./cmd/wfrun-temporal) and give -dev /tmp/wfrun-temporal or set WFRUN_TEMPORAL_DEV")
		return 2
	}
	cfg := config{runs: 120, maxConcurrentAgents: 8, delay: time.Second, rounds: 1}
	if *smoke {
		cfg = config{runs: 4, maxConcurrentAgents: 2, delay: 50 * time.Millisecond, rounds: 1}
	}
	for _, f := range []struct {
		v    int
		into *int
		name string
	}{{*runs, &cfg.runs, "runs"}, {*slots, &cfg.maxConcurrentAgents, "max-concurrent-agents"}, {*rounds, &cfg.rounds, "rounds"}} {
		if f.v < 0 {
			fmt.Fprintf(stderr, "-%s %d is not a positive number\n", f.name, f.v)
			return 2
		}
		if f.v > 0 {
			*f.into = f.v
		}
	}
	if *delay > 0 {
		cfg.delay = *delay
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	t0 := time.Now()
	b, err := newBench(cfg, *dev, *wfrun, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer b.close()
	if err := b.measure(ctx, stdout); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	fmt.Fprintf(stderr, "done in %s\n", time.Since(t0).Round(time.Second))
	return 0
}
