package ledger

import (
	"fmt"

	"github.com/wfrun/wfrun/agentapi"
)

// RunStatus is where a run is in its life, as the ledger records it.
type RunStatus string

// The run statuses: running, then how the run ended, in the words of a
// child's outcome (agentapi.Status), or abandoned.
const (
	RunRunning   RunStatus = "running"
	RunCompleted           = RunStatus(agentapi.StatusCompleted)
	RunFailed              = RunStatus(agentapi.StatusFailed)
	RunCancelled           = RunStatus(agentapi.StatusCancelled)
	RunAbandoned RunStatus = "abandoned" // its process died without settling it
)

// RunStatuses lists every run status.
func RunStatuses() []RunStatus {
	return []RunStatus{RunRunning, RunCompleted, RunFailed, RunCancelled, RunAbandoned}
}

// Valid reports whether s is one of the run statuses.
func (s RunStatus) Valid() bool {
	switch s {
	case RunRunning, RunCompleted, RunFailed, RunCancelled, RunAbandoned:
		return true
	}
	return false
}

// ChildStatus is where a child of a run, or a turn of a sub-agent
// (TurnStatus), is in its life.
type ChildStatus string

// The child statuses: a child is pending until it holds a slot (a turn is
// queued until its sub-agent takes it up), running until it ends, and then
// one of the four outcomes of agent.end (the words of agentapi.Status), or
// abandoned when the process running it died.
const (
	ChildPending   ChildStatus = "pending"
	ChildRunning   ChildStatus = "running"
	ChildCompleted             = ChildStatus(agentapi.StatusCompleted)
	ChildFailed                = ChildStatus(agentapi.StatusFailed)
	ChildCancelled             = ChildStatus(agentapi.StatusCancelled)
	ChildTimedOut              = ChildStatus(agentapi.StatusTimedOut)
	ChildAbandoned             = ChildStatus(RunAbandoned)
)

// Ended reports whether s is a final status.
func (s ChildStatus) Ended() bool { return s != ChildPending && s != TurnQueued && s != ChildRunning }

// Verb is a control verb on a run.
type Verb string

// The verbs.
const (
	Stop     Verb = "stop"      // a live run becomes cancelled
	Retry    Verb = "retry"     // a new run resumed from this one, its child in the lineage
	Continue Verb = "continue"  // an abandoned run resumed in place
	FollowUp Verb = "follow_up" // a note; the status stays
)

// Verbs lists every verb.
func Verbs() []Verb { return []Verb{Stop, Retry, Continue, FollowUp} }

// Transition is what a legal verb does to a run.
type Transition struct {
	Verb Verb
	From RunStatus
	// To is the run's status once the verb has been carried out: stop
	// makes a running run cancelled (when its process has cancelled it),
	// continue makes an abandoned run running again, retry and follow_up
	// leave the status as it is.
	To RunStatus
	// NewRun says the verb starts a new run (retry), linked to this one.
	NewRun bool
}

// Decide says whether verb v may be applied to a run whose status is
// from, and what it does. It is the one place that decides; the error says
// why not and what to do instead.
func Decide(from RunStatus, v Verb) (Transition, error) {
	t := Transition{Verb: v, From: from, To: from}
	if !from.Valid() {
		return t, fmt.Errorf("unknown run status %q", from)
	}
	switch v {
	case Stop:
		if from == RunRunning {
			t.To = RunCancelled
			return t, nil
		}
		return t, fmt.Errorf("the run is %s, not running: there is nothing to stop", from)
	case Retry:
		switch from {
		case RunFailed, RunCancelled, RunAbandoned:
			t.NewRun = true
			return t, nil
		case RunRunning:
			return t, fmt.Errorf("the run is still running: stop it first, or wait for it to end")
		}
		return t, fmt.Errorf("the run completed: there is nothing to retry (wfrun resume starts it again, replaying every agent)")
	case Continue:
		switch from {
		case RunAbandoned:
			t.To = RunRunning
			return t, nil
		case RunRunning:
			return t, fmt.Errorf("the run is still running: only an abandoned run (its process died) can be continued")
		case RunCompleted:
			return t, fmt.Errorf("the run completed: there is nothing to continue")
		}
		return t, fmt.Errorf("the run is %s, which its process settled: retry it instead (a new run that replays the finished agents)", from)
	case FollowUp:
		return t, nil
	}
	return t, fmt.Errorf("unknown verb %q; the verbs are stop, retry, continue and follow_up", v)
}
