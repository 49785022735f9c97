package benchkit

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/wfrun/wfrun/agentapi"
)

// Gate is a provider whose children all wait until Release: a run that
// awaits one of them stays suspended, so its resident cost can be read.
// Each child completes with its prompt as the text, at once when released
// or when its context ends.
type Gate struct {
	release chan struct{}
	once    sync.Once
	started sync.WaitGroup
}

// NewGate returns a gate that expects n children; Wait returns once n have
// started.
func NewGate(n int) *Gate {
	g := &Gate{release: make(chan struct{})}
	g.started.Add(n)
	return g
}

// Name is "gated".
func (g *Gate) Name() string { return "gated" }

// Capabilities are all of them, so that no request is refused.
func (g *Gate) Capabilities() agentapi.Capabilities { return agentapi.All() }

// Run counts the child as started and holds it until Release or ctx ends.
func (g *Gate) Run(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
	g.started.Done()
	select {
	case <-g.release:
	case <-ctx.Done():
	}
	return agentapi.Result{Status: agentapi.StatusCompleted, Text: req.Prompt}, nil
}

// Wait returns when as many children as NewGate was told have started.
func (g *Gate) Wait() { g.started.Wait() }

// Release lets every held child, and every later one, complete. It may be
// called more than once.
func (g *Gate) Release() { g.once.Do(func() { close(g.release) }) }

// RSSMiB is the process's resident set size in MiB, read from
// /proc/self/status (Linux); 0 where that cannot be read.
func RSSMiB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024
		}
	}
	return 0
}
