package agentapi_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi"
)

func TestSleep(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name string
		ctx  func(t *testing.T) context.Context
		d    time.Duration
		want error
	}{
		{"waits the whole duration and returns nil", func(t *testing.T) context.Context { return t.Context() }, 20 * time.Millisecond, nil},
		{"returns at once for a zero duration", func(t *testing.T) context.Context { return t.Context() }, 0, nil},
		{"returns at once for a negative duration", func(t *testing.T) context.Context { return t.Context() }, -time.Hour, nil},
		{"a context already cancelled ends it at once", func(*testing.T) context.Context { return cancelled }, time.Hour, context.Canceled},
		{"a cancelled context wins over a zero duration", func(*testing.T) context.Context { return cancelled }, 0, context.Canceled},
		{"a cancel during the wait ends it with Canceled", func(t *testing.T) context.Context {
			ctx, cancel := context.WithCancel(t.Context())
			time.AfterFunc(5*time.Millisecond, cancel)
			return ctx
		}, time.Hour, context.Canceled},
		{"a deadline during the wait ends it with DeadlineExceeded", func(t *testing.T) context.Context {
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Millisecond)
			t.Cleanup(cancel)
			return ctx
		}, time.Hour, context.DeadlineExceeded},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			err := agentapi.Sleep(c.ctx(t), c.d)
			if !errors.Is(err, c.want) {
				t.Fatalf("Sleep = %v, want %v", err, c.want)
			}
			if c.want == nil && time.Since(start) < c.d {
				t.Errorf("Sleep returned nil after %v, before its %v were up", time.Since(start), c.d)
			}
		})
	}
}

func ExampleSleep() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	// A retry backoff far longer than the child's deadline ends with it.
	err := agentapi.Sleep(ctx, time.Hour)
	fmt.Println(err)
	// Output: context deadline exceeded
}
