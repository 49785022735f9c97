package interrupt

import (
	"context"
	"os"
	"syscall"
)

// Outcome is how a Wait ended.
type Outcome[T any] struct {
	// Value is what done delivered; the zero value when the wait was
	// abandoned.
	Value T
	// Interrupted is the first signal, which called stop; nil when none
	// came.
	Interrupted os.Signal
	// Abandoned is the second signal, which ended the wait before done
	// delivered; nil when done delivered.
	Abandoned os.Signal
}

// Wait waits for done to deliver. The first signal from signals calls
// stop with it and waits on; a second one gives up and returns at once,
// with Abandoned set. A nil signals channel never delivers.
func Wait[T any](done <-chan T, signals <-chan os.Signal, stop func(os.Signal)) Outcome[T] {
	var out Outcome[T]
	for {
		select {
		case v := <-done:
			out.Value = v
			return out
		case sig := <-signals:
			if out.Interrupted != nil {
				out.Abandoned = sig
				return out
			}
			out.Interrupted = sig
			stop(sig)
		}
	}
}

// Go calls f in a goroutine of its own and returns the channel that
// delivers its result, buffered so that the goroutine ends when f
// returns even if nobody receives it any more.
func Go[T any](f func() T) <-chan T {
	done := make(chan T, 1)
	go func() { done <- f() }()
	return done
}

// Name is how a person knows sig: SIGINT, SIGTERM, or its own name.
func Name(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

// Context returns a context that the first signal from signals cancels,
// for a call that takes one and stops when it is done; a second signal is
// the caller's to watch for, if at all. Call cancel when the call returns:
// it ends the goroutine that waits for the signal.
func Context(signals <-chan os.Signal) (ctx context.Context, cancel context.CancelFunc) {
	ctx, cancel = context.WithCancel(context.Background())
	go func() {
		select {
		case <-signals:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}
