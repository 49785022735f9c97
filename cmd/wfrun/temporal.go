package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/wfrun/wfrun/engine"
	wftemporal "github.com/wfrun/wfrun/engine/temporal"
	"github.com/wfrun/wfrun/internal/human"
	"github.com/wfrun/wfrun/internal/interrupt"
)

// The commands and flags of runs on Temporal (docs/scale-out.md): wfrun
// worker serves a task queue, --temporal sends wfrun SCRIPT.js and wfrun
// mcp's workflow tool there, wfrun runs --temporal lists its runs, and
// wfrun temporal dev starts the dev server binary.

// devServerBinary is the dev server's program, built from the nested
// module engine/temporal/server.
const devServerBinary = "wfrun-temporal"

// temporalFromConfig is the value of --temporal that takes the address
// from the Temporal CLI's configuration (TEMPORAL_ADDRESS, a temporal.toml
// profile) rather than naming it; --profile and --config-file imply it.
const temporalFromConfig = "config"

// connFlagNames are the flags of a Temporal connection, named as the
// Temporal CLI names them; --temporal and --namespace go with them.
var connFlagNames = wftemporal.ConnectionFlags

// connFlags are the connection flags of wfrun SCRIPT.js --temporal, mcp,
// worker and runs --temporal.
type connFlags struct{ wftemporal.Connection }

// temporalFlags name the Temporal server and where runs go on it.
type temporalFlags struct {
	temporal, namespace, taskQueue, payloads string
	conn                                     connFlags
}

// bind defines the flags of a command that runs on Temporal: the server,
// the namespace, the task queue and the payload store.
func (f *temporalFlags) bind(fs *flag.FlagSet) {
	f.bindConnection(fs)
	text(fs, &f.taskQueue, "task-queue", "the queue, by `NAME`, where runs and their agents wait (default \"wfrun\"); a client and its workers must name the same one")
	text(fs, &f.payloads, "payloads", payloadsUsage)
}

// bindConnection defines --temporal, --namespace and the connection flags.
func (f *temporalFlags) bindConnection(fs *flag.FlagSet) {
	text(fs, &f.temporal, "temporal", "the frontend of the Temporal server at `HOST:PORT` (wfrun temporal dev: 127.0.0.1:7233), or config to take it from TEMPORAL_ADDRESS or a temporal.toml profile. A run with --temporal leaves the providers' flags (--fake-rules, --base-url, --workspace, …) to the workers; --provider and --model still choose among theirs")
	text(fs, &f.namespace, "namespace", "the Temporal namespace, by `NAME` (default \"default\")")
	f.conn.BindFlags(fs)
}

// resolve folds the connection flags into f.temporal and refuses the
// flags that need a server when none is named; set holds the flags given.
func (f *temporalFlags) resolve(set map[string]bool) error {
	var err error
	if f.temporal, err = f.conn.resolve(f.temporal); err != nil || f.temporal != "" {
		return err
	}
	for _, name := range append([]string{"namespace", "task-queue", "payloads"}, connFlagNames...) {
		if set[name] {
			return fmt.Errorf("--%s goes with --temporal HOST:PORT (or --address, --profile), which names the Temporal server; add it or drop --%s", name, name)
		}
	}
	return nil
}

// given says whether any connection flag was given.
func (c *connFlags) given() bool {
	return *c != connFlags{}
}

// resolve folds --address into temporal (the --temporal value, "" when
// not given) and returns the --temporal value to use: --address is
// --temporal under the Temporal CLI's name, and --profile or --config-file
// alone mean --temporal config.
func (c *connFlags) resolve(temporal string) (string, error) {
	if c.Address != "" {
		if temporal != "" && temporal != c.Address {
			return "", fmt.Errorf("--temporal %s and --address %s name two servers; give one of them", temporal, c.Address)
		}
		return c.Address, nil
	}
	if temporal == "" && (c.Profile != "" || c.ConfigFile != "") {
		return temporalFromConfig, nil
	}
	return temporal, nil
}

// connection is the Connection of temporal (the resolved --temporal
// value), namespace and the connection flags.
func (c *connFlags) connection(temporal, namespace string) wftemporal.Connection {
	conn := c.Connection
	conn.Namespace, conn.Address = namespace, temporal
	if temporal == temporalFromConfig {
		conn.Address = ""
	}
	return conn
}

// temporalOptions are the Options of --task-queue and --payloads.
func temporalOptions(o *temporalFlags) wftemporal.Options {
	return wftemporal.Options{TaskQueue: o.taskQueue, Payloads: payloadStore(o.payloads)}
}

// dialTemporal connects as --temporal, --namespace and the connection
// flags say, over the Temporal CLI's environment and profile, after
// opening the store of --payloads.
func dialTemporal(o *temporalFlags) (client.Client, error) {
	if _, err := openPayloads(o.payloads); err != nil {
		return nil, err
	}
	return wftemporal.DialConnection(o.conn.connection(o.temporal, o.namespace), temporalOptions(o))
}

// serverName is how messages name the server: its address, or the
// configuration it comes from.
func serverName(temporal string) string {
	if temporal == temporalFromConfig {
		return "the server of the Temporal configuration"
	}
	return temporal
}

// runOnTemporal is `wfrun SCRIPT.js --temporal HOST:PORT`: the run is
// checked here, started as a workflow, followed through its events and
// printed as the same WorkflowResult; the first signal cancels the
// workflow, a second exits at once.
func runOnTemporal(in *invocation, o *temporalFlags, e env, s *sinks) int {
	// The workers have the providers; this engine only checks the script.
	eng, err := engine.New(engine.Config{})
	if err != nil {
		return printJSON(e, engine.FailedResult("", err), exitFailed)
	}
	defer closeEngine(eng)
	c, err := dialTemporal(o)
	if err != nil {
		return printJSON(e, engine.FailedResult("", precheck(engine.CodeInvalidRequest, "%v", err)), exitFailed)
	}
	defer c.Close()
	prepareRequest(eng, in, e)
	run, err := wftemporal.NewClient(c, eng, temporalOptions(o)).Start(context.Background(), in.Request)
	if err != nil {
		return printJSON(e, engine.FailedResult("", err), exitFailed)
	}

	prog := progressLine(e, s)
	defer prog.Stop()
	onEvent := func(ev engine.Event) {
		if s != nil {
			s.log.Record(ev)
		}
		if prog != nil {
			prog.Record(ev)
		}
	}
	type settled struct {
		res engine.WorkflowResult
		err error
	}
	out := interrupt.Wait(interrupt.Go(func() settled {
		res, err := run.Wait(context.Background(), onEvent)
		return settled{res, err}
	}), e.signals, func(os.Signal) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := run.Cancel(ctx); err != nil {
			notice(e, "%v", err)
		}
	})
	prog.Stop()
	if out.Abandoned != nil {
		notice(e, "second %s: exiting without waiting for the run; it goes on being cancelled on Temporal", signalName(out.Abandoned))
		return exitInterrupted
	}
	res := out.Value.res
	if out.Value.err != nil {
		res = engine.FailedResult(run.ID(), out.Value.err)
	}
	return printJSON(e, res, exitStatus(res, out.Interrupted != nil))
}

// workerCmd is `wfrun worker --temporal HOST:PORT [--task-queue Q]
// [--max-concurrent-agents N] [provider flags]`: it runs wfrun workflows
// and their agents (at most N at once) for the task queue until a signal
// comes, then stops (its agents in flight are run again by another worker).
func workerCmd(fs *flag.FlagSet) runFunc {
	o := &workerOptions{}
	o.agentFlags.Bind(fs)
	o.limitFlags.Bind(fs)
	bindEvents(fs, &o.events)
	bindOTLP(fs, &o.otlpEndpoint)
	o.temporalFlags.bind(fs)
	count(fs, &o.maxConcurrentAgents, "max-concurrent-agents", "8", "at most `N` agents running at once on this worker, over all the runs it works on (default 1000, the Temporal SDK's); a worker whose slots are all taken leaves the queue's other agents to the other workers")
	return func(e env, positional []string) int { o.set = given(fs); return o.run(e, positional) }
}

// workerOptions are the flags of wfrun worker.
type workerOptions struct {
	options
	temporalFlags
	maxConcurrentAgents int // --max-concurrent-agents; 0: the SDK's default
}

func (o *workerOptions) run(e env, positional []string) int {
	if len(positional) > 0 {
		return usageFail(e, "worker takes no script (runs bring theirs); got %q", positional[0])
	}
	if err := o.resolve(o.set); err != nil {
		return usageFail(e, "%v", err)
	}
	if o.temporal == "" {
		return usageFail(e, "worker needs --temporal HOST:PORT (or --address), the frontend of a Temporal server (wfrun temporal dev starts one on this machine), or --temporal config to take it from TEMPORAL_ADDRESS or a temporal.toml profile")
	}
	in, err := loadToolInvocation(&o.options, e)
	if err != nil {
		return setupFailed(e, err)
	}
	events, closeEvents, err := openEvents(o.events, e)
	if err != nil {
		return usageFail(e, "%v", err)
	}
	defer closeEvents()
	// --events goes to the worker, not the engine: the worker logs a run's
	// events when it first executes them, never again while it replays a
	// history.
	eng, closeProviders, err := newEngine(in, e, nil, !in.ExplicitProvider, true)
	if err != nil {
		notice(e, "%v", err)
		return exitFailed
	}
	defer closeProviders()
	defer closeEngine(eng)
	c, err := dialTemporal(&o.temporalFlags)
	if err != nil {
		notice(e, "%v", err)
		return exitFailed
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	err = wftemporal.PrepareNamespace(ctx, c, o.conn.connection(o.temporal, o.namespace))
	cancel()
	if err != nil {
		notice(e, "%v; runs will not start until the namespace has them", err)
	}
	opts := temporalOptions(&o.temporalFlags)
	opts.MaxConcurrentAgents = o.maxConcurrentAgents
	if events != nil {
		opts.Events = events.log.Record
	}
	w := wftemporal.NewWorker(c, eng, opts)
	if err := w.Start(); err != nil {
		notice(e, "the worker did not start: %v", err)
		return exitFailed
	}
	queue := opts.TaskQueue
	if queue == "" {
		queue = wftemporal.DefaultTaskQueue
	}
	notice(e, "worker of task queue %s on %s, providers %s; stop it with Ctrl-C", queue, serverName(o.temporal), strings.Join(eng.Providers(), ", "))
	sig := <-e.signals
	notice(e, "%s: stopping the worker (its agents in flight go to another worker)", signalName(sig))
	w.Stop()
	return exitCompleted
}

// runsOnTemporal is `wfrun runs --temporal HOST:PORT [--parent P]`.
func runsOnTemporal(f *runsOptions, e env) int {
	c, err := wftemporal.DialConnection(f.conn.connection(f.temporal, f.namespace), wftemporal.Options{})
	if err != nil {
		notice(e, "%v", err)
		return exitFailed
	}
	defer c.Close()
	eng, err := engine.New(engine.Config{})
	if err != nil {
		notice(e, "%v", err)
		return exitFailed
	}
	defer closeEngine(eng)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	runs, err := wftemporal.NewClient(c, eng, wftemporal.Options{}).Runs(ctx, f.parent, 100)
	if err != nil {
		notice(e, "%v", err)
		return exitFailed
	}
	if f.status != "" || f.name != "" {
		kept := runs[:0]
		for _, r := range runs {
			if (f.status == "" || r.Status == f.status) && (f.name == "" || r.Name == f.name) {
				kept = append(kept, r)
			}
		}
		runs = kept
	}
	if f.asJSON {
		return printJSON(e, struct {
			Runs []wftemporal.RunInfo `json:"runs"`
		}{runs}, exitCompleted)
	}
	if len(runs) == 0 {
		fmt.Fprintln(e.stdout, "No runs.")
		return exitCompleted
	}
	now := time.Now()
	for _, r := range runs {
		fmt.Fprintf(e.stdout, "%s  %-24s  %-9s  %-12s  %s\n", r.RunID, r.Name, r.Status, r.Parent, human.Age(now.Sub(r.Start)))
	}
	return exitCompleted
}

// temporalCommand is `wfrun temporal dev [flags]`: it runs the dev server
// binary, found beside wfrun or on PATH, in wfrun's place.
func temporalCommand(args []string, e env) int {
	if len(args) > 0 && args[0] == "gc" {
		return temporalGCCommand(args[1:], e)
	}
	if len(args) == 0 || args[0] != "dev" {
		return usageFail(e, "temporal takes a subcommand: wfrun temporal dev [--port N] [--db FILE], or wfrun temporal gc --temporal HOST:PORT [--payloads URL] [--min-age DURATION] [--dry-run]")
	}
	bin := ""
	if self, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(self), devServerBinary); isExecutable(p) {
			bin = p
		}
	}
	if bin == "" {
		if p, err := exec.LookPath(devServerBinary); err == nil {
			bin = p
		}
	}
	if bin == "" {
		notice(e, "wfrun temporal dev runs the %s program, which is not beside wfrun or on PATH; build it from the module engine/temporal/server (it needs Go 1.26.10 or newer): cd engine/temporal/server && GOTOOLCHAIN=go1.27.3 go install ./cmd/%s", devServerBinary, devServerBinary)
		return exitFailed
	}
	err := syscall.Exec(bin, append([]string{devServerBinary}, args...), os.Environ())
	notice(e, "cannot run %s: %v", bin, err)
	return exitFailed
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}
