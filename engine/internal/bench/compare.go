package main

import (
	"fmt"
	"io"
	"os"
	stdruntime "runtime"
	"strings"
	"text/tabwriter"
	"time"
)

// config sizes one comparison.
type config struct {
	smoke        bool // tiny sizes: the report says its figures mean nothing
	rounds       int  // counted rounds of each workload
	warmup       bool // one uncounted round of each workload first
	startRuns    int  // wfrun's trivial runs per round
	startRunsJS  int  // Node's trivial runs per round (each starts a worker)
	isolatedRuns int  // wfrun's isolated trivial runs per round (each starts a process)
	lanes        int
	throughput   time.Duration // per side and round
	fanOut       []int         // the fan-out sizes
	fanOutRuns   int           // runs of each fan-out per side and round
	suspended    int           // wfrun's suspended runs
	suspendedJS  int           // Node's suspended workers, scaled to suspended
	maxMemMiB    float64       // the memory target for wfrun's suspended runs
}

// fullConfig is the documented comparison; smokeConfig only checks that
// every workload still produces figures.
func fullConfig() config {
	return config{rounds: 5, warmup: true, startRuns: 300, startRunsJS: 10, isolatedRuns: 20, lanes: 4,
		throughput: 1500 * time.Millisecond, fanOut: []int{1000, 10000}, fanOutRuns: 5,
		suspended: 10000, suspendedJS: 50, maxMemMiB: 512}
}

func smokeConfig() config {
	return config{smoke: true, rounds: 1, startRuns: 3, startRunsJS: 2, isolatedRuns: 2, lanes: 2,
		throughput: 100 * time.Millisecond, fanOut: []int{50, 200}, fanOutRuns: 2,
		suspended: 20, suspendedJS: 2, maxMemMiB: 512}
}

// sides are the two implementations a comparison measures.
type sides struct {
	wfrun *wfrunSide
	node  *nodeSide
}

// kind says how a workload's figure reads.
type kind int

const (
	lowerIsBetter  kind = iota // a time: the ratio is Node's over wfrun's
	higherIsBetter             // a rate: the ratio is wfrun's over Node's
)

// row is one workload's figures: one per counted round and side, and the
// ratio of each round's pair.
type row struct {
	name         string
	kind         kind
	format       func(float64) string
	wfrun, node  []float64
	ratios       []float64
	goal         float64 // the ratio the project aims for; 0 for none
	goalText     string
	note         string
	met, checked bool
}

// measure is one side's figure for one round.
type measure func() (float64, error)

// interleave runs the two sides' rounds in turn, wfrun first in even
// rounds and Node first in odd ones, so that a drift in the machine's speed
// falls on both.
func interleave(cfg config, r *row, wf, js measure) error {
	total := cfg.rounds
	if cfg.warmup {
		total++
	}
	for i := range total {
		var a, b float64
		var err error
		stdruntime.GC()
		if i%2 == 0 {
			if a, err = wf(); err == nil {
				b, err = js()
			}
		} else {
			if b, err = js(); err == nil {
				a, err = wf()
			}
		}
		if err != nil {
			return fmt.Errorf("%s: %w", r.name, err)
		}
		if cfg.warmup && i == 0 {
			continue
		}
		r.wfrun, r.node = append(r.wfrun, a), append(r.node, b)
		if a > 0 && b > 0 {
			if r.kind == lowerIsBetter {
				r.ratios = append(r.ratios, b/a)
			} else {
				r.ratios = append(r.ratios, a/b)
			}
		}
	}
	if r.goal > 0 {
		r.checked, r.met = true, spreadOf(r.ratios).med >= r.goal
	}
	return nil
}

// medianOf turns a list of samples into one figure.
func medianOf(f func() ([]float64, error)) measure {
	return func() (float64, error) {
		xs, err := f()
		return median(xs), err
	}
}

// compare runs every workload and returns the rows in the order they ran.
func compare(cfg config, s sides, progress io.Writer) ([]*row, error) {
	var rows []*row
	add := func(r *row, wf, js measure) error {
		fmt.Fprintf(progress, "measuring %s…\n", r.name)
		rows = append(rows, r)
		return interleave(cfg, r, wf, js)
	}
	if err := add(&row{name: "trivial run, start to result (median)", kind: lowerIsBetter, format: formatDuration,
		goal: 500, goalText: "≥ 500×", note: fmt.Sprintf("%d wfrun runs and %d Node workers a round", cfg.startRuns, cfg.startRunsJS)},
		medianOf(func() ([]float64, error) { return s.wfrun.start(cfg.startRuns) }),
		medianOf(func() ([]float64, error) { return s.node.start(cfg.startRunsJS) })); err != nil {
		return rows, err
	}
	isolated := &row{name: "isolated trivial run (--isolate process), start to result (median)", kind: lowerIsBetter, format: formatDuration,
		goalText: "wfrun ≤ 15 ms", note: fmt.Sprintf("%d wfrun runs, each a child process, and %d Node workers a round", cfg.isolatedRuns, cfg.startRunsJS)}
	if err := add(isolated,
		medianOf(func() ([]float64, error) { return s.wfrun.startIsolated(cfg.isolatedRuns) }),
		medianOf(func() ([]float64, error) { return s.node.start(cfg.startRunsJS) })); err != nil {
		return rows, err
	}
	isolated.checked, isolated.met = true, spreadOf(isolated.wfrun).med <= 15000
	if err := add(&row{name: fmt.Sprintf("4-agent runs per second, %d lanes", cfg.lanes), kind: higherIsBetter,
		format: func(x float64) string { return groupDigits(x) + "/s" }, goal: 100, goalText: "≥ 100×",
		note: fmt.Sprintf("%s a side and round", cfg.throughput)},
		func() (float64, error) { return s.wfrun.throughput(cfg.lanes, cfg.throughput) },
		func() (float64, error) { return s.node.throughput(cfg.lanes, cfg.throughput) }); err != nil {
		return rows, err
	}
	for _, n := range cfg.fanOut {
		if err := add(&row{name: fmt.Sprintf("per agent() at %s fan-out (median run)", formatCount(n)), kind: lowerIsBetter,
			format: formatDuration, goal: 1, goalText: "≥ 1× (no slower)",
			note: fmt.Sprintf("%d runs a side and round; Node reuses one worker", cfg.fanOutRuns)},
			medianOf(func() ([]float64, error) { return s.wfrun.fanOut(n, cfg.fanOutRuns) }),
			medianOf(func() ([]float64, error) { return s.node.fanOut(n, cfg.fanOutRuns) })); err != nil {
			return rows, err
		}
	}
	fmt.Fprintf(progress, "measuring %s suspended runs…\n", formatCount(cfg.suspended))
	mw, err := s.wfrun.suspended(cfg.suspended)
	if err != nil {
		return rows, err
	}
	mn, err := s.node.suspended(cfg.suspendedJS)
	if err != nil {
		return rows, err
	}
	scaled := mn.AddedMiB / float64(mn.Runs) * float64(cfg.suspended)
	r := &row{name: fmt.Sprintf("%s suspended runs, resident memory", formatCount(cfg.suspended)), kind: lowerIsBetter,
		format: formatMiB, wfrun: []float64{mw.RSSMiB}, node: []float64{scaled},
		goalText: fmt.Sprintf("wfrun ≤ %.0f MiB", cfg.maxMemMiB), checked: true, met: mw.RSSMiB <= cfg.maxMemMiB,
		note: fmt.Sprintf("wfrun: the whole fresh process (%s added by the runs; %s once freed memory is returned to the OS; live: %s heap, %s stacks); Node: %.1f MiB added per worker for %d workers, times %s",
			formatMiB(mw.AddedMiB), formatMiB(mw.SettledMiB), formatMiB(mw.HeapMiB), formatMiB(mw.StacksMiB),
			mn.AddedMiB/float64(mn.Runs), mn.Runs, formatCount(cfg.suspended))}
	if mw.RSSMiB > 0 && scaled > 0 {
		r.ratios = []float64{scaled / mw.RSSMiB}
	}
	rows = append(rows, r)
	return rows, nil
}

func formatMiB(m float64) string {
	if m >= 10*1024 {
		return fmt.Sprintf("%.0f GiB", m/1024)
	}
	return fmt.Sprintf("%.0f MiB", m)
}

// report prints the machine, the rows and the notes.
func report(w io.Writer, cfg config, s sides, rows []*row) {
	fmt.Fprintf(w, "wfrun beside the Node.js worker design, %s\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(w, "machine: %s, %d CPUs, GOMAXPROCS %d, %s %s/%s, node %s\n", cpuModel(), stdruntime.NumCPU(),
		stdruntime.GOMAXPROCS(0), stdruntime.Version(), stdruntime.GOOS, stdruntime.GOARCH, s.node.version)
	warm := ""
	if cfg.warmup {
		warm = ", after one uncounted warm-up round"
	}
	if cfg.smoke {
		fmt.Fprintf(w, "-smoke: tiny sizes that only show the comparison runs; these figures mean nothing.\n")
	}
	fmt.Fprintf(w, "Interleaved rounds per workload: %d%s. Each side's figure is the median of its rounds,\n", cfg.rounds, warm)
	fmt.Fprintf(w, "the ratio the median of the rounds' paired ratios (how many times faster or smaller wfrun is).\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "workload\twfrun\tNode\tratio (min–max)\ttarget\t")
	for _, r := range rows {
		sp := spreadOf(r.ratios)
		ratio := formatRatio(sp.med)
		if len(r.ratios) > 1 {
			ratio += fmt.Sprintf(" (%s–%s)", groupDigits(sp.lo), groupDigits(sp.hi))
		}
		verdict := ""
		if r.checked {
			verdict = " missed"
			if r.met {
				verdict = " met"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s%s\t\n", r.name, r.format(median(r.wfrun)), r.format(median(r.node)), ratio, r.goalText, verdict)
	}
	_ = tw.Flush()
	fmt.Fprintln(w)
	for _, r := range rows {
		if r.note != "" {
			fmt.Fprintf(w, "- %s: %s\n", r.name, r.note)
		}
	}
}

// cpuModel is the first "model name" of /proc/cpuinfo, or the architecture.
func cpuModel() string {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return stdruntime.GOARCH
}
