package temporal

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine"
)

// The names under which the workflow, its agent activity and its query
// are registered. They are part of every history: renaming one breaks the
// replay of runs already started. The local activities are called by
// method value, so a history records them by their method's name
// (Prepare, LoadWorkflow): renaming those breaks replay too.
const (
	WorkflowName  = "wfrun.run"
	QueryEvents   = "wfrun.events"
	agentActivity = "wfrun.agent"
)

// Defaults of a zero Options.
const (
	DefaultTaskQueue        = "wfrun"
	DefaultNamespace        = "default"
	DefaultHeartbeatTimeout = 20 * time.Second
	DefaultAgentAttempts    = 3
	// DefaultMaxBusy is how long a script may run on a workflow task
	// without awaiting anything before it is stopped with RESOURCE_LIMIT:
	// a workflow task that does not answer within its timeout is taken
	// from its worker and given to another, which would run the same loop.
	DefaultMaxBusy = 5 * time.Second
	// workflowTaskTimeout leaves a replaying worker room to rerun a long
	// script from its start in one workflow task.
	workflowTaskTimeout = time.Minute
	// noTimeout is the StartToClose of an agent in a run with neither an
	// agent timeout nor a deadline.
	noTimeout = 24 * time.Hour
)

// Options configures workers and clients of one task queue. The zero value
// works on one machine; every worker and client of a task queue must agree
// on Payloads.
type Options struct {
	// TaskQueue is where runs and their agents are queued; "" means "wfrun".
	TaskQueue string
	// Payloads holds every payload larger than PayloadInline bytes, so
	// that a history keeps a reference instead (see Codec). Workers and
	// clients on several machines must share it (OpenPayloadStore opens
	// one by URL: a folder, or an S3 bucket as a BlobStore).
	// CollectPayloads deletes the payloads no history refers to. nil: a
	// DirStore in DefaultPayloadDir.
	Payloads PayloadStore
	// HeartbeatTimeout is how long an agent's activity may go without a
	// heartbeat before Temporal gives it to another worker: how soon a lost
	// worker is noticed. Activities heartbeat at a third of it. 0 means 20 s.
	HeartbeatTimeout time.Duration
	// AgentAttempts is how often one agent may be started when workers are
	// lost under it (a heartbeat or start-to-close timeout, a worker that
	// stopped). A failure of the agent itself is never retried by Temporal:
	// the provider has its own retries. 0 means 3.
	AgentAttempts int
	// Events, if set, gets every event of every run this worker works on,
	// once each: the events of a run it takes over from another worker
	// (replayed from the history) come as soon as the run goes on here.
	// A query's replay of a finished run forwards nothing. Clients follow
	// runs with Run.Wait instead.
	Events func(engine.Event)
	// MaxBusy bounds how long the script may run without awaiting
	// anything; 0 means DefaultMaxBusy.
	MaxBusy time.Duration
	// MaxConcurrentAgents bounds how many agents (agent activities) one
	// worker runs at once, over all the runs it works on: the SDK's
	// worker.Options.MaxConcurrentActivityExecutionSize. A worker with
	// every slot taken polls for no more agents, so the others of its
	// task queue take them: set it to what the worker's machine and its
	// model endpoint bear. It does not bound the workflows (the scripts)
	// a worker runs, nor an agent's own tools. 0 means the SDK's default
	// (1,000). Only NewWorker reads it.
	MaxConcurrentAgents int
}

func (o Options) withDefaults() Options {
	if o.TaskQueue == "" {
		o.TaskQueue = DefaultTaskQueue
	}
	if o.HeartbeatTimeout <= 0 {
		o.HeartbeatTimeout = DefaultHeartbeatTimeout
	}
	if o.AgentAttempts <= 0 {
		o.AgentAttempts = DefaultAgentAttempts
	}
	if o.MaxBusy <= 0 {
		o.MaxBusy = DefaultMaxBusy
	}
	if o.MaxConcurrentAgents < 0 {
		o.MaxConcurrentAgents = 0
	}
	return o
}

// limits are the plan's durations that agent activities derive from.
type limits struct {
	timeout time.Duration // the run's deadline, 0 none
	grace   time.Duration
}

// activityOptions are the options of req's activity. Start-to-close is the
// agent's own timeout and the cancel grace (the run's timer cancels the
// activity at the timeout; this only bounds a lost worker), else the run's
// deadline and grace. Only a lost worker is retried: every error the
// activity returns for a reason of its own is non-retryable.
func (o *Options) activityOptions(req agentapi.Request, l limits) workflow.ActivityOptions {
	stc := noTimeout
	switch {
	case req.Timeout > 0:
		stc = req.Timeout + l.grace
	case l.timeout > 0:
		stc = l.timeout + l.grace
	}
	return workflow.ActivityOptions{
		ActivityID:          activityID(req),
		TaskQueue:           o.TaskQueue,
		StartToCloseTimeout: stc,
		HeartbeatTimeout:    o.HeartbeatTimeout,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval:    time.Second,
			BackoffCoefficient: 2,
			MaximumInterval:    10 * time.Second,
			MaximumAttempts:    int32(o.AgentAttempts),
		},
	}
}
