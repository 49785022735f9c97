package temporal

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/wfrun/wfrun/internal/human"
)

// RunInfo is one run as its search attributes list it.
type RunInfo struct {
	RunID  string    `json:"runId"`
	Name   string    `json:"name"`
	Parent string    `json:"parent"`
	Status string    `json:"status"`
	Start  time.Time `json:"startTime"`
}

// RunList is the JSON of wfrun runs --temporal: the runs, newest first.
type RunList struct {
	Runs []RunInfo `json:"runs"`
}

// RunFilter says which runs ListRuns lists. Every field but Limit is
// matched by the server's visibility query, so that a filter finds its
// runs however many others the namespace holds.
type RunFilter struct {
	// Parent keeps the runs the owner of that name started (AttrParent).
	Parent string
	// Status keeps the runs of that status as RunInfo.Status says it: a
	// run's stop reason ("completed", "error", …), "running", or how
	// Temporal ended a run that never settled ("terminated",
	// "timedout", "canceled", "failed").
	Status string
	// Name keeps the runs of that meta name (AttrName).
	Name string
	// Limit is the most runs listed, the newest first; 0 is 100.
	Limit int
}

// Runs lists the runs of the client's namespace, newest first, at most
// limit of them (0: 100); parent, if set, keeps only that owner's.
func (c *Client) Runs(ctx context.Context, parent string, limit int) ([]RunInfo, error) {
	return ListRuns(ctx, c.c, RunFilter{Parent: parent, Limit: limit})
}

// ListRuns lists the wfrun runs of c's namespace that f keeps, newest
// first. It needs no engine: it only reads the runs' search attributes.
func ListRuns(ctx context.Context, c client.Client, f RunFilter) ([]RunInfo, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	q := runsQuery(f)
	var out []RunInfo
	var token []byte
	for len(out) < limit {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: q, NextPageToken: token, PageSize: int32(min(limit-len(out), 100))})
		if err != nil {
			return nil, fmt.Errorf("cannot list runs: %w", err)
		}
		for _, e := range resp.GetExecutions() {
			info := RunInfo{RunID: e.GetExecution().GetWorkflowId(), Start: e.GetStartTime().AsTime()}
			sa := e.GetSearchAttributes().GetIndexedFields()
			info.Name = keyword(sa[AttrName.GetName()])
			info.Parent = keyword(sa[AttrParent.GetName()])
			info.Status = keyword(sa[AttrStatus.GetName()])
			if st := e.GetStatus(); info.Status == StatusRunning && st != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
				// Ended by Temporal (terminated, timed out), not by the run.
				info.Status = executionStatusName(st)
			}
			out = append(out, info)
		}
		if token = resp.GetNextPageToken(); len(token) == 0 {
			break
		}
	}
	return out, nil
}

// listTimeout bounds ListRunsAt.
const listTimeout = 30 * time.Second

// ListRunsAt connects as conn says, lists the runs f keeps (ListRuns),
// and closes the connection: what wfrun runs --temporal does.
func ListRunsAt(conn Connection, f RunFilter) ([]RunInfo, error) {
	c, err := DialConnection(conn, Options{})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), listTimeout)
	defer cancel()
	return ListRuns(ctx, c, f)
}

// executionStatusName is how RunInfo.Status says a Temporal execution
// status: "terminated", "timedout", ….
func executionStatusName(st enumspb.WorkflowExecutionStatus) string {
	return strings.ToLower(strings.TrimPrefix(st.String(), "WORKFLOW_EXECUTION_STATUS_"))
}

// runsQuery is the visibility query of f. A run's listed status is its
// AttrStatus, unless that still says running and Temporal ended the
// execution: then it is the execution's status, and the query asks for
// either.
func runsQuery(f RunFilter) string {
	q := fmt.Sprintf("WorkflowType = %s", quote(WorkflowName))
	if f.Parent != "" {
		q += fmt.Sprintf(" AND %s = %s", AttrParent.GetName(), quote(f.Parent))
	}
	if f.Name != "" {
		q += fmt.Sprintf(" AND %s = %s", AttrName.GetName(), quote(f.Name))
	}
	if f.Status == "" {
		return q
	}
	status := AttrStatus.GetName()
	ended := ""
	for v := range enumspb.WorkflowExecutionStatus_name {
		st := enumspb.WorkflowExecutionStatus(v)
		if st > enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING && executionStatusName(st) == f.Status {
			ended = st.String() // as the visibility query names it: TimedOut, …
		}
	}
	switch {
	case f.Status == StatusRunning:
		return q + fmt.Sprintf(" AND %s = %s AND ExecutionStatus = 'Running'", status, quote(StatusRunning))
	case ended != "":
		return q + fmt.Sprintf(" AND (%s = %s OR (%s = %s AND ExecutionStatus = %s))", status, quote(f.Status), status, quote(StatusRunning), quote(ended))
	default:
		return q + fmt.Sprintf(" AND %s = %s", status, quote(f.Status))
	}
}

// quote is s as a string literal of a visibility query.
func quote(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}

// WriteRuns writes runs one a line, as wfrun runs --temporal prints them:
// the run id, the name, the status, the owner and the age at now; "No
// runs." when there are none.
func WriteRuns(w io.Writer, runs []RunInfo, now time.Time) {
	if len(runs) == 0 {
		fmt.Fprintln(w, "No runs.")
		return
	}
	for _, r := range runs {
		fmt.Fprintf(w, "%s  %-24s  %-9s  %-12s  %s\n", r.RunID, r.Name, r.Status, r.Parent, human.Age(now.Sub(r.Start)))
	}
}
