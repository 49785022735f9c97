package temporal

import (
	"context"
	"os"
	"time"

	"github.com/wfrun/wfrun/engine"
)

// cancelTimeout bounds the request that cancels a followed run.
const cancelTimeout = 10 * time.Second

// Followed is how Follow ended.
type Followed struct {
	// Result is the run's result: a FailedResult when it could not be had.
	// It is empty when Follow gave up waiting (Abandoned).
	Result engine.WorkflowResult
	// Interrupted says an interrupt came and the workflow was asked to
	// cancel; Result is then the cancelled run's.
	Interrupted bool
	// Abandoned is the second interrupt, after which Follow stopped
	// waiting: the run goes on being cancelled on Temporal. It is nil when
	// Follow waited for the result.
	Abandoned os.Signal
}

// Follow waits for the run's result as Wait does, onEvent getting its
// events, while it watches interrupts (a nil channel: none come). The
// first interrupt asks Temporal to cancel the workflow (a failure to ask
// goes to cancelFailed, if set) and Follow waits on for the cancelled
// result; the second gives up waiting and returns at once. This is how
// wfrun SCRIPT.js --temporal follows its run.
func (r *Run) Follow(ctx context.Context, onEvent func(engine.Event), interrupts <-chan os.Signal, cancelFailed func(error)) Followed {
	ctx, stop := context.WithCancel(ctx)
	defer stop() // an abandoned Wait ends with Follow
	type settled struct {
		res engine.WorkflowResult
		err error
	}
	done := make(chan settled, 1)
	go func() {
		res, err := r.Wait(ctx, onEvent)
		done <- settled{res, err}
	}()
	var out Followed
	for {
		select {
		case st := <-done:
			out.Result = st.res
			if st.err != nil {
				out.Result = engine.FailedResult(r.id, st.err)
			}
			return out
		case sig := <-interrupts:
			if out.Interrupted {
				out.Abandoned = sig
				return out
			}
			out.Interrupted = true
			cctx, cancel := context.WithTimeout(context.Background(), cancelTimeout)
			if err := r.Cancel(cctx); err != nil && cancelFailed != nil {
				cancelFailed(err)
			}
			cancel()
		}
	}
}
