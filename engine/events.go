package engine

import "github.com/wfrun/wfrun/runtime"

// Event is one line of a run's event stream (docs/cli.md, "Events"): an
// alias of runtime.Event, whose doc lists the fields.
type Event = runtime.Event

// EventType names an event.
type EventType = runtime.EventType

// The event types.
const (
	EventRunStart   = runtime.EventRunStart
	EventPhase      = runtime.EventPhase
	EventLog        = runtime.EventLog
	EventAgentStart = runtime.EventAgentStart
	EventAgentEnd   = runtime.EventAgentEnd
	EventRunEnd     = runtime.EventRunEnd
)
