package main

import (
	"encoding/json"
	"io"
	"sync"

	"github.com/wfrun/wfrun/engine"
)

// eventLog writes every event as one JSON line (docs/cli.md, "Events"). The engine
// calls its sink from several goroutines, so writes are serialised. After
// the first failed write it stops writing and keeps the error for the end.
type eventLog struct {
	mu  sync.Mutex
	enc *json.Encoder
	err error
}

func newEventLog(w io.Writer) *eventLog {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &eventLog{enc: enc}
}

// record is an engine event sink.
func (l *eventLog) record(ev engine.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		l.err = l.enc.Encode(ev)
	}
}

// Err returns the first write error.
func (l *eventLog) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}
