package workspace

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the processor time this process and the children it waited
// for (every git it ran) have used so far.
func cpuTime(b *testing.B) time.Duration {
	b.Helper()
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if err := syscall.Getrusage(who, &ru); err != nil {
			b.Fatal(err)
		}
		total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return total
}

// reportCPU adds the processor time per round since start, a figure that,
// unlike the wall time, a busy shared machine hardly changes.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N)/1e6, "cpu-ms/op")
}

// benchRepo is a repository of 2,000 small files in 20 folders, the size of
// a small project, committed once.
func benchRepo(b *testing.B) *Workspace {
	b.Helper()
	w := repo(b, Config{})
	for d := range 20 {
		for f := range 100 {
			write(b, filepath.Join(w.Root(), fmt.Sprintf("pkg%02d/file%03d.go", d, f)), fmt.Sprintf("package pkg%02d\n\n// file %d\n", d, f))
		}
	}
	gitIn(b, w.Root(), "add", ".")
	gitIn(b, w.Root(), "commit", "--quiet", "-m", "files")
	return w
}

// BenchmarkFinishKept is Finish on a worktree whose child edited one file:
// the whole status is taken, and the worktree is kept, so every round does
// the same work.
func BenchmarkFinishKept(b *testing.B) {
	w := benchRepo(b)
	ctx := context.Background()
	wt, err := w.AddWorktree(ctx, "ag_bench")
	if err != nil {
		b.Fatal(err)
	}
	write(b, filepath.Join(wt.Path(), "pkg07/file042.go"), "package pkg07\n\n// edited\n")
	start := cpuTime(b)
	for b.Loop() {
		if kept, err := wt.Finish(ctx); err != nil || kept == nil {
			b.Fatalf("Finish = %+v, %v; want it kept", kept, err)
		}
	}
	reportCPU(b, start)
}

// BenchmarkWorktreeCycle is a whole unchanged worktree: AddWorktree (with
// its checkout of 2,000 files) and Finish, which removes it.
func BenchmarkWorktreeCycle(b *testing.B) {
	w := benchRepo(b)
	ctx := context.Background()
	i := 0
	start := cpuTime(b)
	for b.Loop() {
		i++
		wt, err := w.AddWorktree(ctx, fmt.Sprintf("ag_cycle_%d", i))
		if err != nil {
			b.Fatal(err)
		}
		if kept, err := wt.Finish(ctx); err != nil || kept != nil {
			b.Fatalf("Finish = %+v, %v; want it removed", kept, err)
		}
	}
	reportCPU(b, start)
}
