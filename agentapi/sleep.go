package agentapi

import (
	"context"
	"time"
)

// Sleep waits for d and returns nil, or returns ctx's error as soon as ctx
// is done. A d of zero or less does not wait: Sleep then returns ctx.Err()
// at once. Providers use it for every pause of a child (a scripted
// delay, a retry backoff), so that a cancelled or timed-out child stops
// waiting at once. It starts no goroutine and leaves no timer behind.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
