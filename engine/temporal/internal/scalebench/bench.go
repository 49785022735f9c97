package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/wfrun/wfrun/engine"
	wftemporal "github.com/wfrun/wfrun/engine/temporal"
)

// config is one invocation's sizes.
type config struct {
	runs                int           // runs per phase
	maxConcurrentAgents int           // --max-concurrent-agents of every worker
	delay               time.Duration // the endpoint's wait per answer
	rounds              int           // rounds of (one worker, two workers)
}

// bench is what every phase of an invocation shares: the dev server, the
// endpoint and the wfrun binary whose workers it measures.
type bench struct {
	cfg   config
	wfrun string
	home  string
	srv   *devServer
	ep    *endpoint
	log   io.Writer
}

// phase is one measurement: cfg.runs runs against workers workers.
type phase struct {
	workers  int
	elapsed  time.Duration
	answered map[string]int // answers the endpoint gave each worker
	// The CPU time the dev server and the workers used during the phase;
	// 0 where /proc could not tell.
	serverCPU, workerCPU time.Duration
}

// perMinute is the phase's throughput.
func (p phase) perMinute(runs int) float64 { return float64(runs) / p.elapsed.Minutes() }

// runPhase starts workers worker processes on a task queue of their own,
// starts cfg.runs runs there, waits for them all and stops the workers.
// The clock runs from the first run's start to the last run's end.
func (b *bench) runPhase(ctx context.Context, round, workers int) (phase, error) {
	queue := fmt.Sprintf("scale-r%d-w%d", round, workers)
	spec := workerSpec{wfrun: b.wfrun, addr: b.srv.addr, taskQueue: queue, payloads: filepath.Join(b.home, "payloads"),
		home: b.home, maxConcurrentAgents: b.cfg.maxConcurrentAgents, ep: b.ep}
	var procs []*workerProc
	defer func() {
		for _, w := range procs {
			w.stop()
		}
	}()
	for i := range workers {
		w, err := startWorker(ctx, spec, fmt.Sprintf("r%d-w%d-%d", round, workers, i+1))
		if err != nil {
			return phase{}, err
		}
		procs = append(procs, w)
	}
	opts := wftemporal.Options{TaskQueue: queue, Payloads: wftemporal.DirStore{Dir: spec.payloads}}
	c, err := wftemporal.Dial(b.srv.addr, "", opts)
	if err != nil {
		return phase{}, err
	}
	defer c.Close()
	eng, err := engine.New(engine.Config{})
	if err != nil {
		return phase{}, err
	}
	defer eng.Close(context.Background())

	srvCPU0, _ := cpuTime(b.srv.cmd.Process.Pid)
	workerCPU0 := map[int]time.Duration{}
	for _, w := range procs {
		workerCPU0[w.cmd.Process.Pid], _ = cpuTime(w.cmd.Process.Pid)
	}
	t0 := time.Now()
	runs, err := startRuns(ctx, wftemporal.NewClient(c, eng, opts), queue, b.cfg.runs)
	if err != nil {
		return phase{}, err
	}
	if err := waitRuns(ctx, runs); err != nil {
		return phase{}, err
	}
	p := phase{workers: workers, elapsed: time.Since(t0), answered: map[string]int{}}
	seen := b.ep.snapshot()
	if d, ok := cpuTime(b.srv.cmd.Process.Pid); ok {
		p.serverCPU = d - srvCPU0
	}
	for _, w := range procs {
		p.answered[w.name] = seen.Workers[w.name].Answered
		if d, ok := cpuTime(w.cmd.Process.Pid); ok {
			p.workerCPU += d - workerCPU0[w.cmd.Process.Pid]
		}
	}
	return p, nil
}

// measure runs cfg.rounds rounds of one worker then two, and reports.
func (b *bench) measure(ctx context.Context, out io.Writer) error {
	cfg := b.cfg
	ceiling := float64(cfg.maxConcurrentAgents) / agentsPerRun * (time.Minute.Seconds() / cfg.delay.Seconds())
	fmt.Fprintf(out, "scalebench: %d runs of a %d-agent script per phase, every answer %s, --max-concurrent-agents %d per worker\n",
		cfg.runs, agentsPerRun, cfg.delay, cfg.maxConcurrentAgents)
	fmt.Fprintf(out, "ceiling of one worker (its slots always busy): %.1f runs/min\n", ceiling)
	var one, two, ratios []float64
	for r := range cfg.rounds {
		var got [2]phase
		for i, workers := range []int{1, 2} {
			fmt.Fprintf(b.log, "round %d: %d worker(s)...\n", r+1, workers)
			p, err := b.runPhase(ctx, r+1, workers)
			if err != nil {
				return fmt.Errorf("round %d with %d worker(s): %w", r+1, workers, err)
			}
			got[i] = p
		}
		a, c := got[0].perMinute(cfg.runs), got[1].perMinute(cfg.runs)
		one, two, ratios = append(one, a), append(two, c), append(ratios, c/a)
		fmt.Fprintf(out, "round %d: 1 worker %.1f runs/min (%s, %.0f%% of its ceiling); 2 workers %.1f runs/min (%s, %.0f%% of theirs; agents answered %s); ratio %.2f\n",
			r+1, a, got[0].elapsed.Round(100*time.Millisecond), 100*a/ceiling,
			c, got[1].elapsed.Round(100*time.Millisecond), 100*c/(2*ceiling), split(got[1].answered), c/a)
		for _, p := range got {
			fmt.Fprintf(out, "  %d worker(s): CPU per run %s in the dev server, %s in the workers; %.2f cores busy on average\n",
				p.workers, perRun(p.serverCPU, cfg.runs), perRun(p.workerCPU, cfg.runs), (p.serverCPU+p.workerCPU).Seconds()/p.elapsed.Seconds())
		}
	}
	fmt.Fprintf(out, "median: 1 worker %.1f runs/min, 2 workers %.1f runs/min, ratio %.2f (min %.2f, max %.2f); goal >= 1.80\n",
		median(one), median(two), median(ratios), slices.Min(ratios), slices.Max(ratios))
	return nil
}

// perRun is d shared among runs, to the tenth of a millisecond.
func perRun(d time.Duration, runs int) time.Duration {
	return (d / time.Duration(runs)).Round(100 * time.Microsecond)
}

// split is "a / b" of the answers each worker gave, in worker order.
func split(answered map[string]int) string {
	names := make([]string, 0, len(answered))
	for n := range answered {
		names = append(names, n)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprint(answered[n])
	}
	return strings.Join(parts, " / ")
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// newBench builds or takes the wfrun binary, and starts the dev server
// and the endpoint; close ends them.
func newBench(cfg config, dev, wfrun string, log io.Writer) (*bench, error) {
	home, err := os.MkdirTemp("", "wfrun-scalebench-")
	if err != nil {
		return nil, err
	}
	b := &bench{cfg: cfg, home: home, wfrun: wfrun, log: log}
	if b.wfrun == "" {
		fmt.Fprintln(log, "building cmd/wfrun...")
		if b.wfrun, err = buildWfrun(home); err != nil {
			b.close()
			return nil, err
		}
	}
	if b.ep, err = newEndpoint(cfg.delay); err != nil {
		b.close()
		return nil, err
	}
	if b.srv, err = startDevServer(dev); err != nil {
		b.close()
		return nil, err
	}
	return b, nil
}

func (b *bench) close() {
	if b.srv != nil {
		b.srv.stop()
	}
	if b.ep != nil {
		b.ep.close()
	}
	_ = os.RemoveAll(b.home)
}
