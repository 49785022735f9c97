package temporal

import (
	"context"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"errors"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/internal/wferr"
	"github.com/wfrun/wfrun/runtime"
)

// Resuming a run on Temporal (resumeFromRunId) starts a new workflow whose
// script is answered, call by call, from the finished agents of the old
// run's history: the completed results of its agent activities, in the
// order they completed, become the new run's journal (runtime.Journal), as
// a runs folder's journal does for a durable run in process. A call whose
// request changed (another prompt at the same place) is not answered from
// the old run and runs again. A worker reads the entries in a local
// activity, so the new run's history keeps them and every replay resumes
// the same way.

// priorRun asks a worker for the finished agents of run ID, which must
// belong to Owner.
type priorRun struct {
	ID    string `json:"id"`
	Owner string `json:"owner"`
}

// prior is the answer: the old run's finished agents, or why it cannot be
// resumed.
type prior struct {
	Entries []runtime.JournalEntry `json:"entries,omitempty"`
	Error   *wireError             `json:"error,omitempty"`
}

// Prior reads the finished agents of an earlier run from its history.
func (a *activities) Prior(ctx context.Context, p priorRun) (prior, error) {
	if a.client == nil {
		return prior{Error: toWire(wferr.New(wferr.InvalidRequest, "this worker cannot read run %s: resume runs through workers started by wfrun worker", p.ID))}, nil
	}
	entries, err := priorEntries(ctx, a.client, NewDataConverter(a.opts.store()), p)
	if err != nil {
		return prior{Error: toWire(err)}, nil
	}
	return prior{Entries: entries}, nil
}

// priorEntries reads the completed agent activities of run p.ID.
func priorEntries(ctx context.Context, c client.Client, dc converter.DataConverter, p priorRun) ([]runtime.JournalEntry, error) {
	unknown := wferr.New(wferr.InvalidRequest, "no run %q is known here: it was never started by you on this cluster; list your runs with workflow_list", p.ID)
	d, err := c.DescribeWorkflowExecution(ctx, p.ID, "")
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return nil, unknown
	}
	if err != nil {
		return nil, wferr.Wrap(wferr.Internal, err, "run %s could not be read to resume it: %v; try again", p.ID, err)
	}
	ex := d.GetWorkflowExecutionInfo()
	if ex.GetType().GetName() != WorkflowName || keyword(ex.GetSearchAttributes().GetIndexedFields()[AttrParent.GetName()]) != p.Owner {
		return nil, unknown
	}
	if ex.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return nil, wferr.New(wferr.InvalidRequest, "run %s is still running; a run on Temporal goes on by itself: wait for it, or cancel it and then resume it", p.ID)
	}
	calls := map[int64]AgentCall{}
	var entries []runtime.JournalEntry
	it := c.GetWorkflowHistory(ctx, p.ID, ex.GetExecution().GetRunId(), false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			return nil, wferr.Wrap(wferr.Internal, err, "the history of run %s could not be read: %v; try again", p.ID, err)
		}
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == agentActivity {
			var call AgentCall
			if err := dc.FromPayloads(a.GetInput(), &call); err == nil {
				calls[ev.GetEventId()] = call
			}
		}
		if a := ev.GetActivityTaskCompletedEventAttributes(); a != nil {
			call, ok := calls[a.GetScheduledEventId()]
			if !ok {
				continue
			}
			var res agentapi.Result
			if err := dc.FromPayloads(a.GetResult(), &res); err != nil || res.Status != agentapi.StatusCompleted {
				continue // only finished answers are reused; the rest run again
			}
			req := call.Request
			entries = append(entries, runtime.JournalEntry{
				Seq: req.Seq, Order: len(entries) + 1, Key: runtime.CallKey(req), AgentID: req.AgentID, Label: req.Label, Phase: req.Phase,
				Status: res.Status, Text: res.Text, Output: res.Output, Note: res.Note, Usage: res.Usage,
			})
		}
	}
	return entries, nil
}

// historyJournal is the journal of a resumed run: the old run's entries.
// Recording is the history's job (every activity is in it), so Record
// keeps nothing.
type historyJournal struct{ entries []runtime.JournalEntry }

func (j historyJournal) Prior() []runtime.JournalEntry     { return j.entries }
func (j historyJournal) Record(runtime.JournalEntry) error { return nil }
