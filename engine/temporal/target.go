package temporal

import (
	"context"
	"fmt"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/wfrun/wfrun/engine"
)

// AddressFromConfig is the Target.Server that takes the address from the
// Temporal CLI's configuration (TEMPORAL_ADDRESS, a temporal.toml
// profile) rather than naming it: wfrun's --temporal config.
const AddressFromConfig = "config"

// Target is a Temporal server and where wfrun's runs go on it, as wfrun's
// command line names them (docs/scale-out.md), so that a program
// embedding wfrun reaches the same server with the same settings and
// errors: Server is --temporal (HOST:PORT, AddressFromConfig, or "" for
// none); Connection holds --address, --namespace and the connection
// flags (--api-key, --tls…, --profile, --config-file); TaskQueue and
// Payloads are --task-queue and --payloads (the payload store's URL).
// Its errors name the settings by those flags.
type Target struct {
	Server string
	Connection
	TaskQueue, Payloads string
}

// Resolve folds Connection.Address into Server: --address is --temporal
// under the Temporal CLI's name, so the two must agree, and a Profile or
// ConfigFile named alone means AddressFromConfig. Server is "" after it
// when nothing names a server.
func (t *Target) Resolve() error {
	if a := t.Connection.Address; a != "" {
		if t.Server != "" && t.Server != a {
			return fmt.Errorf("--temporal %s and --address %s name two servers; give one of them", t.Server, a)
		}
		t.Server = a
	} else if t.Server == "" && (t.Profile != "" || t.ConfigFile != "") {
		t.Server = AddressFromConfig
	}
	return nil
}

// Conn is the Connection to dial, after Resolve: its Address is Server,
// or none (the configuration's) for AddressFromConfig.
func (t Target) Conn() Connection {
	c := t.Connection
	c.Address = t.Server
	if t.Server == AddressFromConfig {
		c.Address = ""
	}
	return c
}

// OpenPayloads opens the payload store of Payloads once per process
// (SharedPayloadStore); "" is the default folder.
func (t Target) OpenPayloads() (SweepableStore, error) {
	s, err := SharedPayloadStore(t.Payloads)
	if err != nil {
		return nil, fmt.Errorf("--payloads: %w", err)
	}
	return s, nil
}

// Dial opens the payload store and connects, over the Temporal CLI's
// environment and profile. The Options it returns carry TaskQueue and the
// store, for NewClient and NewWorker.
func (t Target) Dial() (client.Client, Options, error) {
	store, err := t.OpenPayloads()
	if err != nil {
		return nil, Options{}, err
	}
	opts := Options{TaskQueue: t.TaskQueue, Payloads: store}
	c, err := DialConnection(t.Conn(), opts)
	return c, opts, err
}

// prepareTimeout bounds how long StartWorker prepares the namespace.
const prepareTimeout = 30 * time.Second

// StartWorker is how wfrun worker starts: it prepares the namespace conn
// resolves to (PrepareNamespace; a namespace that cannot take the search
// attributes is reported to warn, and the worker starts anyway: its runs
// wait until an operator adds them), then starts a worker of
// opts.TaskQueue whose runs and agents use eng. Stop it with Stop.
func StartWorker(c client.Client, eng *engine.Engine, conn Connection, opts Options, warn func(error)) (worker.Worker, error) {
	ctx, cancel := context.WithTimeout(context.Background(), prepareTimeout)
	err := PrepareNamespace(ctx, c, conn)
	cancel()
	if err != nil && warn != nil {
		warn(err)
	}
	w := NewWorker(c, eng, opts)
	if err := w.Start(); err != nil {
		return nil, fmt.Errorf("the worker did not start: %w", err)
	}
	return w, nil
}
