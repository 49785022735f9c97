package temporal

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/wfrun/wfrun/internal/human"
)

// sharedStores are the stores SharedPayloadStore opened, by URL.
var sharedStores sync.Map // string → sharedStore

type sharedStore struct {
	store SweepableStore
	err   error
}

// SharedPayloadStore opens the payload store of spec (OpenPayloadStore)
// once per process: a client, a worker and their data converters given
// the same URL share one store, which lives as long as the process and is
// never closed. A failure to open is kept too: the next call with the same
// URL gets the same error.
func SharedPayloadStore(spec string) (SweepableStore, error) {
	if v, ok := sharedStores.Load(spec); ok {
		e := v.(sharedStore)
		return e.store, e.err
	}
	s, err := OpenPayloadStore(context.Background(), spec)
	v, _ := sharedStores.LoadOrStore(spec, sharedStore{s, err})
	e := v.(sharedStore)
	return e.store, e.err
}

// ServerName is how messages name the server conn reaches: its address,
// or the Temporal configuration it comes from when it names none.
func (c Connection) ServerName() string {
	if c.Address == "" {
		return "the server of the Temporal configuration"
	}
	return c.Address
}

// Queue is the task queue of o: TaskQueue, or DefaultTaskQueue.
func (o Options) Queue() string {
	if o.TaskQueue == "" {
		return DefaultTaskQueue
	}
	return o.TaskQueue
}

// WriteReport writes what CollectPayloads found and did, as wfrun temporal
// gc prints it: in a dry run a line for each payload it would delete, then
// the counts; minAge is the age it kept payloads below, as it was asked.
func (r GCResult) WriteReport(w io.Writer, minAge time.Duration) {
	verb := "deleted"
	if r.DryRun {
		verb = "would delete"
		for _, k := range r.Deleted {
			fmt.Fprintf(w, "would delete %s\n", k)
		}
	}
	fmt.Fprintf(w, "%s %d of %d payloads (%s); kept %d that the %d histories of the namespace refer to and %d younger than %s\n",
		verb, len(r.Deleted), r.Payloads, human.Bytes(r.DeletedBytes), r.Referenced, r.Histories, r.Recent, minAge)
}
