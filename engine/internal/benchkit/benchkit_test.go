package benchkit_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine/internal/benchkit"
	"github.com/wfrun/wfrun/internal/testkit/leaktest"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

func TestGate_HoldsEveryChildUntilReleased(t *testing.T) {
	const n = 3
	g := benchkit.NewGate(n)
	done := make(chan agentapi.Result, n)
	for i := range n {
		go func() {
			res, _ := g.Run(context.Background(), agentapi.Request{Prompt: string(rune('a' + i))})
			done <- res
		}()
	}
	g.Wait()
	select {
	case res := <-done:
		t.Fatalf("a child ended before the release: %+v", res)
	case <-time.After(20 * time.Millisecond):
	}
	g.Release()
	g.Release() // a second release is harmless
	for range n {
		if res := <-done; res.Status != agentapi.StatusCompleted || res.Text == "" {
			t.Fatalf("released child: %+v, want completed with its prompt", res)
		}
	}
}

func TestGate_ACancelledChildEndsWithoutARelease(t *testing.T) {
	g := benchkit.NewGate(1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if res, err := g.Run(ctx, agentapi.Request{Prompt: "x"}); err != nil || res.Text != "x" {
		t.Fatalf("%+v, %v", res, err)
	}
}

func TestRSSMiB_IsThisProcesssResidentMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	if m := benchkit.RSSMiB(); m <= 1 || m > 1<<20 {
		t.Fatalf("RSSMiB() = %v, want a test binary's few MiB", m)
	}
}
