package temporal

import (
	"context"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/wfrun/wfrun/engine"
)

// Dial connects to the Temporal frontend at hostPort, in namespace ("":
// "default"), in plaintext, with the data converter that keeps large
// payloads in opts.Payloads. DialConnection takes TLS, API keys and the
// Temporal CLI's environment and profiles.
func Dial(hostPort, namespace string, opts Options) (client.Client, error) {
	return DialConnection(Connection{Address: hostPort, Namespace: namespace, TLS: "false", Env: noEnv{}, only: true}, opts)
}

// noEnv is an empty environment: Dial's connection is only its arguments.
type noEnv struct{}

func (noEnv) Environ() []string               { return nil }
func (noEnv) LookupEnv(string) (string, bool) { return "", false }

func (o Options) store() PayloadStore {
	if o.Payloads != nil {
		return o.Payloads
	}
	return DirStore{Dir: DefaultPayloadDir()}
}

// NewWorker returns a worker of opts.TaskQueue that runs wfrun workflows,
// and their agents with eng's providers, at most opts.MaxConcurrentAgents
// agents at once. c must come from Dial (or use
// NewDataConverter with the same store). Start it with Start or Run; a
// stopped worker's agents are run again by another worker, its workflows
// replayed there from their histories.
func NewWorker(c client.Client, eng *engine.Engine, opts Options) worker.Worker {
	opts = opts.withDefaults()
	w := worker.New(c, opts.TaskQueue, worker.Options{
		// The script runs inside workflow code; MaxBusy stops it first.
		DeadlockDetectionTimeout:           opts.MaxBusy + 5*time.Second,
		MaxConcurrentActivityExecutionSize: opts.MaxConcurrentAgents,
	})
	register(w, eng, opts, c)
	return w
}

// Register registers the workflow and the agent activity on r: a worker,
// or the SDK's test environment.
// Register has no client, so its workflows do not end poison runs (see
// MaxTaskAttempts); NewWorker's do.
func Register(r worker.Registry, eng *engine.Engine, opts Options) {
	register(r, eng, opts, nil)
}

func register(r worker.Registry, eng *engine.Engine, opts Options, c client.Client) {
	opts = opts.withDefaults()
	acts := &activities{eng: eng, opts: opts, client: c}
	wf := &workflows{opts: opts, acts: acts, client: c, sent: &sentEvents{n: map[string]int{}}}
	r.RegisterWorkflowWithOptions(wf.Run, workflow.RegisterOptions{Name: WorkflowName})
	r.RegisterActivityWithOptions(acts.Agent, activity.RegisterOptions{Name: agentActivity})
}

// RegisterReplay registers the workflow alone, for a worker.WorkflowReplayer.
func RegisterReplay(r worker.WorkflowRegistry, opts Options) {
	wf := &workflows{opts: opts.withDefaults(), acts: &activities{}, sent: &sentEvents{n: map[string]int{}}}
	r.RegisterWorkflowWithOptions(wf.Run, workflow.RegisterOptions{Name: WorkflowName})
}

// EnsureSearchAttributes adds the run's search attributes (AttrName,
// AttrParent, AttrStatus) to the client's namespace where they are
// missing. A worker calls it before it starts; the dev server has them.
func EnsureSearchAttributes(ctx context.Context, c client.Client, namespace string) error {
	if namespace == "" {
		namespace = DefaultNamespace
	}
	have, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		return fmt.Errorf("cannot list the search attributes of namespace %s: %w", namespace, err)
	}
	missing := map[string]enumspb.IndexedValueType{}
	for _, k := range []string{AttrName.GetName(), AttrParent.GetName(), AttrStatus.GetName()} {
		if _, ok := have.GetCustomAttributes()[k]; !ok {
			missing[k] = enumspb.INDEXED_VALUE_TYPE_KEYWORD
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if _, err := c.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{Namespace: namespace, SearchAttributes: missing}); err != nil {
		return fmt.Errorf("cannot add wfrun's search attributes to namespace %s (an operator may add them: Keyword attributes WfrunName, WfrunParent, WfrunStatus): %w", namespace, err)
	}
	return nil
}
