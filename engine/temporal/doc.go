// Package temporal runs wfrun workflows on Temporal: the script is a
// Temporal workflow, executed by wfrun's own runtime inside the workflow
// function, and every agent() is an activity that any worker of the task
// queue can run. A run then survives the loss of its machine (another
// worker replays the workflow from its history and goes on), and a fleet
// of workers shares the runs and their agents.
//
// # The model
//
// The runtime's Scheduler seam (runtime/scheduler.go) is the whole of the
// integration: this package's scheduler turns the run's goroutines into
// workflow coroutines, its waits into workflow conditions, its timers into
// workflow timers and its clock into the workflow's. The VM and the host
// functions are the same code as in process; only where the host side
// waits differs. Because the order in which children end now comes from
// the history, and the sandbox gives the script no clock, no randomness
// and no I/O, a replay takes exactly the steps of the first execution.
//
//   - Workflow (Run, registered as "wfrun.run") takes a
//     WorkflowStartRequest. A local activity on the worker plans it with
//     the worker's engine (engine.Plan: every pre-check, the provider's
//     capabilities, the limits), and the plan goes into the history, so
//     that every replay follows it whatever worker replays.
//   - The agent activity ("wfrun.agent") runs one child through the
//     worker's provider of that name. It heartbeats, so a lost worker is
//     noticed and its agent given to another; a cancellation from the
//     workflow reaches the provider's context. Start-to-close is the
//     agent's timeout plus the cancel grace (the workflow's own timer ends
//     the agent at its timeout). Temporal retries only a lost worker: every
//     other error is non-retryable, since the provider has its own retries.
//   - Events live in the workflow's memory, rebuilt by every replay; the
//     events query hands them out, and Run.Wait follows a run through it.
//   - Every payload over PayloadInline bytes goes to a PayloadStore, the
//     history keeping a reference (NewDataConverter), so that histories
//     stay far under Temporal's limits; MaxAgentsPerRun is the measured
//     ceiling of one run, refused before it starts. The store is a folder
//     (DirStore) or a bucket of an object store (BlobStore, S3 through
//     gocloud.dev/blob), opened by URL (OpenPayloadStore);
//     CollectPayloads deletes the payloads that no history the namespace
//     still lists refers to, and never anything else in the store.
//   - Search attributes (AttrName, AttrParent, AttrStatus) let
//     Client.Runs list runs by meta name, owner and status.
//   - The limits that measure a worker (the busy limit, the heap
//     watchdog, the regexp timeout) are decided once and kept in the
//     history (the scheduler is a runtime.LimitRecorder), so a replay on
//     another machine takes the same steps.
//   - A poison run — its workflow task failed MaxTaskAttempts times — is
//     terminated by the next worker that rebuilds it (poison.go); its
//     client gets an INTERNAL result, and the workers go on.
//   - Connection (connect.go) reaches a cluster as the Temporal CLI does:
//     a temporal.toml profile, the TEMPORAL_* variables, TLS and API keys;
//     Connection.BindFlags defines the Temporal CLI's connection flags
//     (--address, --api-key, --tls, …) on a caller's flag.FlagSet (flags.go).
//   - Client.Remote holds background runs for the workflow tool, and
//     resumeFromRunId starts a new run whose journal is an ended run's
//     completed agent activities (resume.go).
//   - What wfrun's commands assemble is here, for an embedder to get the
//     same behaviour: Target (the server, connection, task queue and
//     payload store as the flags name them; BindFlags, ResolveFlags,
//     Dial), StartWorker and Target.Serve (wfrun worker), Run.Follow (the first interrupt cancels the workflow, the
//     second stops waiting), ListRuns with a RunFilter that the server's
//     visibility query applies (wfrun runs --temporal) and WriteRuns,
//     FindDevServer and ExecDevServer (wfrun temporal dev), and
//     GCFlags and GCResult.WriteReport (wfrun temporal gc). The command keeps only
//     reading its flags and printing.
//
// What a run on Temporal cannot do: resume from a runs folder (its history
// is its journal), process isolation (the VM lives in the workflow
// function), and a script that computes for longer than Options.MaxBusy
// without awaiting an agent (a workflow task must answer in time) ends
// with RESOURCE_LIMIT.
//
// This package never imports Temporal's server: the dev server lives in the
// nested module engine/temporal/server, which needs a newer Go.
//
// Place: cmd → engine/temporal → engine → runtime → sandbox.
package temporal
