package temporal

import (
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/wfrun/wfrun/engine"
)

// Serving is a worker that Target.Serve started: Queue is its task queue
// and Server how messages name the server it works for.
type Serving struct {
	Queue, Server string
	w             worker.Worker
	c             client.Client
}

// Serve is wfrun worker on t: it dials t and starts a worker of its task
// queue whose runs and agents use eng (StartWorker, which reports a
// namespace without wfrun's search attributes to warn). opts sets the
// rest of the worker's Options (MaxConcurrentAgents, Events, …); its
// TaskQueue and Payloads are t's. Stop the worker with Serving.Stop.
func (t Target) Serve(eng *engine.Engine, opts Options, warn func(error)) (*Serving, error) {
	c, dialed, err := t.Dial()
	if err != nil {
		return nil, err
	}
	opts.TaskQueue, opts.Payloads = dialed.TaskQueue, dialed.Payloads
	w, err := StartWorker(c, eng, t.Conn(), opts, warn)
	if err != nil {
		c.Close()
		return nil, err
	}
	return &Serving{Queue: opts.Queue(), Server: t.Conn().ServerName(), w: w, c: c}, nil
}

// Stop stops the worker (its agents in flight are run again by another
// worker of the queue) and closes its connection.
func (s *Serving) Stop() {
	s.w.Stop()
	s.c.Close()
}
