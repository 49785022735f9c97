package engine_test

import (
	"context"
	stdruntime "runtime"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/internal/benchkit"
)

// The figures these benchmarks produce are recorded in docs/benchmarks.md.
// Run: go test -run '^$' -bench . -benchtime 3s ./engine/

// BenchmarkTrivialRun measures Start → result for meta + one agent() +
// return, through the public API with the fake provider at zero delay. It
// reports the median and 99th percentile latency.
func BenchmarkTrivialRun(b *testing.B) {
	eng, _ := engine.New(engine.Config{})
	defer eng.Close(context.Background())
	req := engine.WorkflowStartRequest{Script: trivial, Parent: "bench"}
	if res := eng.Run(context.Background(), req); res.StopReason != engine.StopCompleted {
		b.Fatalf("%+v", res)
	}
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		run, err := eng.Start(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		run.Wait()
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	reportPercentiles(b, lat)
}

func reportPercentiles(b *testing.B, lat []time.Duration) {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	p := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Nanoseconds()) / 1e3 }
	b.ReportMetric(p(0.50), "p50-µs")
	b.ReportMetric(p(0.99), "p99-µs")
}

// BenchmarkPromiseAll4Throughput runs a 4-agent Promise.all script from
// many goroutines at once and reports completed runs per second.
func BenchmarkPromiseAll4Throughput(b *testing.B) {
	eng, _ := engine.New(engine.Config{})
	defer eng.Close(context.Background())
	req := engine.WorkflowStartRequest{Parent: "bench", Script: `export const meta = { name: 'four', description: 'four agents at once' }
const r = await Promise.all(['a', 'b', 'c', 'd'].map(x => agent('task ' + x)))
return r.length`}
	b.ReportAllocs()
	b.SetParallelism(8)
	t0 := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if res := eng.Run(context.Background(), req); res.StopReason != engine.StopCompleted {
				b.Errorf("%+v", res)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(t0).Seconds(), "runs/s")
}

// BenchmarkFanOutPerAgent measures the engine's cost per agent() call in one
// run that fans out to 10,000 children with Promise.all.
func BenchmarkFanOutPerAgent(b *testing.B) {
	const n = 10000
	eng, _ := engine.New(engine.Config{MaxTotalAgents: n})
	defer eng.Close(context.Background())
	req := engine.WorkflowStartRequest{Parent: "bench", Script: `export const meta = { name: 'fan', description: 'fan out' }
const r = await Promise.all(Array.from({ length: ` + strconv.Itoa(n) + ` }, (_, i) => agent('item ' + i)))
return r.length`}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res := eng.Run(context.Background(), req)
		if string(res.Value) != strconv.Itoa(n) {
			b.Fatalf("%+v", res)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n)/1e3, "µs/agent")
}

// BenchmarkLiveRuns10000 starts 10,000 runs that each await one slow child
// and reports the process's resident memory while all of them are alive.
func BenchmarkLiveRuns10000(b *testing.B) {
	const n = 10000
	for i := 0; i < b.N; i++ {
		stdruntime.GC()
		before := benchkit.RSSMiB()
		p := benchkit.NewGate(n)
		eng, _ := engine.New(engine.Config{Providers: []agentapi.Provider{p}, DefaultProvider: p.Name()})
		req := engine.WorkflowStartRequest{Parent: "bench", Script: trivial}
		runs := make([]*engine.Run, n)
		for j := range runs {
			r, err := eng.Start(context.Background(), req)
			if err != nil {
				b.Fatal(err)
			}
			runs[j] = r
		}
		p.Wait()
		during := benchkit.RSSMiB()
		p.Release()
		for _, r := range runs {
			if res := r.Wait(); res.StopReason != engine.StopCompleted {
				b.Fatalf("%+v", res)
			}
		}
		_ = eng.Close(context.Background())
		b.ReportMetric(during, "RSS-MiB")
		b.ReportMetric(during-before, "added-MiB")
	}
}
