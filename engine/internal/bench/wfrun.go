package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	stdruntime "runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/internal/benchkit"
)

// wfrunSide runs the workloads through the public engine API with the
// built-in fake provider at zero delay.
type wfrunSide struct {
	eng *engine.Engine
}

func newWfrunSide(maxAgents int) (*wfrunSide, error) {
	eng, err := engine.New(engine.Config{MaxTotalAgents: maxAgents})
	if err != nil {
		return nil, err
	}
	return &wfrunSide{eng: eng}, nil
}

// startIsolated times trivial runs with process isolation (each in a
// child process of its own), one after another.
func (w *wfrunSide) startIsolated(runs int) ([]float64, error) {
	us := make([]float64, 0, runs)
	for range runs {
		t0 := time.Now()
		res := w.eng.Run(context.Background(), engine.WorkflowStartRequest{Parent: "bench", Script: trivialScript, Isolate: engine.IsolateProcess})
		if res.StopReason != engine.StopCompleted {
			return nil, fmt.Errorf("wfrun side, isolated: the run ended %s: %s", res.StopReason, res.Error)
		}
		us = append(us, float64(time.Since(t0).Nanoseconds())/1e3)
	}
	return us, nil
}

func (w *wfrunSide) close() error { return w.eng.Close(context.Background()) }

func (w *wfrunSide) run(script string) error {
	res := w.eng.Run(context.Background(), engine.WorkflowStartRequest{Parent: "bench", Script: script})
	if res.StopReason != engine.StopCompleted {
		return fmt.Errorf("wfrun side: the run ended %s: %s", res.StopReason, res.Error)
	}
	return nil
}

// start times runs trivial runs, one after another, from Start to result.
func (w *wfrunSide) start(runs int) ([]float64, error) {
	us := make([]float64, 0, runs)
	for range runs {
		t0 := time.Now()
		if err := w.run(trivialScript); err != nil {
			return nil, err
		}
		us = append(us, float64(time.Since(t0).Nanoseconds())/1e3)
	}
	return us, nil
}

// throughput runs the 4-agent script on lanes goroutines for d and returns
// completed runs per second.
func (w *wfrunSide) throughput(lanes int, d time.Duration) (float64, error) {
	var (
		runs atomic.Int64
		wg   sync.WaitGroup
		errs = make(chan error, lanes)
	)
	t0 := time.Now()
	end := t0.Add(d)
	for range lanes {
		wg.Go(func() {
			for time.Now().Before(end) {
				if err := w.run(fourScript); err != nil {
					errs <- err
					return
				}
				runs.Add(1)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(t0).Seconds()
	select {
	case err := <-errs:
		return 0, err
	default:
	}
	return float64(runs.Load()) / elapsed, nil
}

// fanOut runs the fan-out script rounds times and returns microseconds per
// agent of each run.
func (w *wfrunSide) fanOut(agents, rounds int) ([]float64, error) {
	script := fanOutScript(agents)
	us := make([]float64, 0, rounds)
	for range rounds {
		t0 := time.Now()
		if err := w.run(script); err != nil {
			return nil, err
		}
		us = append(us, float64(time.Since(t0).Nanoseconds())/1e3)
	}
	return perAgent(us, agents), nil
}

// memory is the resident memory of runs suspended at once.
type memory struct {
	Runs     int     `json:"runs"`
	RSSMiB   float64 `json:"rssMiB"`   // the whole process while they wait
	AddedMiB float64 `json:"addedMiB"` // above the process before the first
	// wfrun only: the whole process while they wait, after a collection
	// that returns freed memory to the OS (what the runtime does by itself
	// within minutes), and how the live memory splits.
	SettledMiB float64 `json:"settledMiB,omitempty"`
	HeapMiB    float64 `json:"heapMiB,omitempty"`
	StacksMiB  float64 `json:"stacksMiB,omitempty"`
}

// suspendedEnv, set to a number of runs, makes this program (or its test
// binary) measure that many suspended runs in a fresh process and print a
// memory as JSON instead of doing anything else.
const suspendedEnv = "WFRUN_BENCH_SUSPENDED"

// suspended measures runs suspended runs in a fresh process of this
// program, so that nothing else this process allocated is counted.
func (w *wfrunSide) suspended(runs int) (memory, error) {
	exe, err := os.Executable()
	if err != nil {
		return memory{}, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), suspendedEnv+"="+strconv.Itoa(runs))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return memory{}, fmt.Errorf("wfrun side: the suspended-runs process: %w", err)
	}
	var m memory
	if err := json.Unmarshal(out, &m); err != nil {
		return memory{}, fmt.Errorf("wfrun side: the suspended-runs process printed %q: %w", out, err)
	}
	return m, nil
}

// maybeSuspendedChild is the fresh process's side of suspended: when
// suspendedEnv is set it measures, prints and reports true.
func maybeSuspendedChild() bool {
	v, ok := os.LookupEnv(suspendedEnv)
	if !ok {
		return false
	}
	runs, err := strconv.Atoi(v)
	if err != nil || runs <= 0 {
		fmt.Fprintf(os.Stderr, "%s=%q: want a positive number of runs\n", suspendedEnv, v)
		os.Exit(2)
	}
	m, err := measureSuspended(runs)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	_ = json.NewEncoder(os.Stdout).Encode(m)
	return true
}

// measureSuspended starts runs trivial runs whose child waits until all of
// them have started, and reads the resident memory then.
func measureSuspended(runs int) (memory, error) {
	stdruntime.GC()
	before := benchkit.RSSMiB()
	p := benchkit.NewGate(runs)
	eng, err := engine.New(engine.Config{Providers: []agentapi.Provider{p}, DefaultProvider: p.Name()})
	if err != nil {
		return memory{}, err
	}
	defer eng.Close(context.Background())
	started := make([]*engine.Run, 0, runs)
	for range runs {
		r, err := eng.Start(context.Background(), engine.WorkflowStartRequest{Parent: "bench", Script: trivialScript})
		if err != nil {
			p.Release()
			return memory{}, err
		}
		started = append(started, r)
	}
	p.Wait()
	during := benchkit.RSSMiB()
	debug.FreeOSMemory()
	settled := benchkit.RSSMiB()
	var ms stdruntime.MemStats
	stdruntime.ReadMemStats(&ms)
	p.Release()
	for _, r := range started {
		if res := r.Wait(); res.StopReason != engine.StopCompleted {
			return memory{}, fmt.Errorf("a suspended run ended %s: %s", res.StopReason, res.Error)
		}
	}
	return memory{Runs: runs, RSSMiB: during, AddedMiB: during - before, SettledMiB: settled,
		HeapMiB: float64(ms.HeapAlloc) / (1 << 20), StacksMiB: float64(ms.StackInuse) / (1 << 20)}, nil
}
