package workspace

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

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
	for b.Loop() {
		if kept, err := wt.Finish(ctx); err != nil || kept == nil {
			b.Fatalf("Finish = %+v, %v; want it kept", kept, err)
		}
	}
}

// BenchmarkWorktreeCycle is a whole unchanged worktree: AddWorktree (with
// its checkout of 2,000 files) and Finish, which removes it.
func BenchmarkWorktreeCycle(b *testing.B) {
	w := benchRepo(b)
	ctx := context.Background()
	i := 0
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
}
