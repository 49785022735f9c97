package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wfrun/wfrun/engine"
)

func main() {
	engine.Init() // the isolated runs re-execute this binary
	if maybeSuspendedChild() {
		return
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run parses the flags, runs the comparison and prints its report on
// stdout (progress on stderr). It returns the exit status: 0 when both
// sides produced every figure (whether or not a target was met), 1 when a
// side failed, 2 for bad flags.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	smoke := fs.Bool("smoke", false, "tiny sizes: check that every workload runs, in seconds (the figures mean nothing)")
	node := fs.String("node", "node", "the Node.js binary")
	nodeDir := fs.String("node-dir", "", "the folder of bench.mjs (default: testdata/bench/node of the repository holding the working directory)")
	rounds := fs.Int("rounds", 0, "counted rounds per workload (default 5; 1 with -smoke)")
	fanOut := fs.String("fanout", "", "comma-separated fan-out sizes (default 1000,10000)")
	suspended := fs.Int("suspended", 0, "wfrun's suspended runs (default 10000)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: go run ./engine/internal/bench [-smoke] [flags]\n\n"+
			"Runs wfrun and the Node.js worker-per-run design on the same workloads in interleaved rounds\n"+
			"and prints each side's median and their ratio (docs/benchmarks.md).\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "bench takes no arguments, got %q\n", fs.Args())
		return 2
	}
	cfg := fullConfig()
	if *smoke {
		cfg = smokeConfig()
	}
	if *rounds > 0 {
		cfg.rounds = *rounds
	}
	if *suspended > 0 {
		cfg.suspended = *suspended
	}
	if *fanOut != "" {
		sizes, err := parseSizes(*fanOut)
		if err != nil {
			fmt.Fprintf(stderr, "-fanout: %v\n", err)
			return 2
		}
		cfg.fanOut = sizes
	}

	dir := *nodeDir
	if dir == "" {
		var err error
		if dir, err = findNodeDir(); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
	}
	js, err := startNode(*node, dir)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer js.close()
	wf, err := newWfrunSide(slices.Max(cfg.fanOut))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer wf.close()

	t0 := time.Now()
	s := sides{wfrun: wf, node: js}
	rows, err := compare(cfg, s, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	report(stdout, cfg, s, rows)
	fmt.Fprintf(stderr, "done in %s\n", time.Since(t0).Round(time.Second))
	return 0
}

// parseSizes reads "1000,10000".
func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a positive number of agents", f)
		}
		out = append(out, n)
	}
	return out, nil
}
