package ui

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine/ledger"
)

// listLimit is how many runs the list shows; the ledger may hold many more.
const listLimit = 500

// Group is how the list groups runs: the way a person scans them.
type Group string

// The groups, in the order the list shows them.
const (
	GroupAttention Group = "attention" // abandoned: its process died; continue or retry it
	GroupWorking   Group = "working"   // running
	GroupCompleted Group = "completed"
	GroupFailed    Group = "failed"
	GroupStopped   Group = "stopped" // cancelled
)

// Groups lists the groups in the order the list shows them.
func Groups() []Group {
	return []Group{GroupAttention, GroupWorking, GroupCompleted, GroupFailed, GroupStopped}
}

// Title is the group's heading.
func (g Group) Title() string {
	switch g {
	case GroupAttention:
		return "Needs attention"
	case GroupWorking:
		return "Working"
	case GroupCompleted:
		return "Completed"
	case GroupFailed:
		return "Failed"
	case GroupStopped:
		return "Stopped"
	}
	return string(g)
}

// GroupOf says which group a run of status s belongs to.
func GroupOf(s ledger.RunStatus) Group {
	switch s {
	case ledger.RunAbandoned:
		return GroupAttention
	case ledger.RunRunning:
		return GroupWorking
	case ledger.RunCompleted:
		return GroupCompleted
	case ledger.RunFailed:
		return GroupFailed
	case ledger.RunCancelled:
		return GroupStopped
	}
	return GroupAttention // a status this wfrun does not know: someone should look
}

// listRow is one run of the list.
type listRow struct {
	ledger.Run
	Agents   int // spawned; for a live run, the agents started so far
	Replayed int
	Failed   int // failed and timed out
	Usage    agentapi.Usage
	Age      time.Duration
}

type listGroup struct {
	Group Group
	Rows  []listRow
}

// listPage is what the list renders.
type listPage struct {
	Status   string // the filter, as given
	Name     string
	Statuses []ledger.RunStatus
	Groups   []listGroup
	Shown    int
	Matched  int
	Limit    int
	Ledger   string
	Error    string
}

// listFilter reads the filter of a list request.
func listFilter(r *http.Request) (status ledger.RunStatus, name string, problem string) {
	q := r.URL.Query()
	status = ledger.RunStatus(strings.TrimSpace(q.Get("status")))
	name = strings.TrimSpace(q.Get("name"))
	if status != "" && !status.Valid() {
		return "", name, "status " + quote(string(status)) + " is not a run status; choose one of the list"
	}
	return status, name, ""
}

// list builds the runs list: the ledger's rows with status, those whose
// name holds name (any case), grouped.
func (s *Server) list(status ledger.RunStatus, name, problem string) listPage {
	p := listPage{Status: string(status), Name: name, Statuses: ledger.RunStatuses(), Limit: listLimit,
		Ledger: s.cfg.Engine.Ledger().Path(), Error: problem}
	if problem != "" {
		return p
	}
	s.sweep()
	l := s.cfg.Engine.Ledger()
	runs, err := l.List(context.Background(), ledger.Filter{Status: status})
	if err != nil {
		p.Error = "the run ledger cannot be read: " + err.Error()
		return p
	}
	now := s.cfg.Now()
	byGroup := map[Group][]listRow{}
	needle := strings.ToLower(name)
	for _, r := range runs {
		if needle != "" && !strings.Contains(strings.ToLower(r.Name), needle) {
			continue
		}
		p.Matched++
		if p.Shown == listLimit {
			continue
		}
		p.Shown++
		row := listRow{Run: r, Agents: r.AgentsSpawned, Replayed: r.Agents.Replayed, Failed: r.Agents.Failed + r.Agents.TimedOut,
			Usage: r.Usage, Age: now.Sub(r.CreatedAt)}
		if r.EndedAt == nil {
			// The row's counts are written when the run settles; until
			// then its children's snapshots say how far it got.
			row.fromChildren(l)
		}
		g := GroupOf(r.Status)
		byGroup[g] = append(byGroup[g], row)
	}
	for _, g := range Groups() {
		if rows := byGroup[g]; len(rows) > 0 {
			p.Groups = append(p.Groups, listGroup{Group: g, Rows: rows})
		}
	}
	return p
}

func (row *listRow) fromChildren(l *ledger.Ledger) {
	kids, err := l.Children(context.Background(), row.ID)
	if err != nil {
		return
	}
	row.Agents, row.Replayed, row.Failed, row.Usage = len(kids), 0, 0, agentapi.Usage{}
	for _, c := range kids {
		if c.Replayed {
			row.Replayed++
		}
		if c.Status == ledger.ChildFailed || c.Status == ledger.ChildTimedOut {
			row.Failed++
		}
		row.Usage = row.Usage.Add(c.Usage)
	}
}

func (s *Server) runsPage(w http.ResponseWriter, r *http.Request) {
	status, name, problem := listFilter(r)
	s.render(w, http.StatusOK, "runs", "layout", s.list(status, name, problem))
}

func (s *Server) runsFragment(w http.ResponseWriter, r *http.Request) {
	status, name, problem := listFilter(r)
	s.render(w, http.StatusOK, "runs", "body", s.list(status, name, problem))
}
