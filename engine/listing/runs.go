package listing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/wfrun/wfrun/engine/ledger"
	"github.com/wfrun/wfrun/internal/human"
)

// WriteRuns writes the runs as a table, newest first as given: id, name,
// status, agents, tokens, cost and age at now; "No runs." for none.
func WriteRuns(out io.Writer, runs []ledger.Run, now time.Time) {
	if len(runs) == 0 {
		fmt.Fprintln(out, "No runs.")
		return
	}
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tNAME\tSTATUS\tAGENTS\tTOKENS\tCOST\tAGE")
	for _, r := range runs {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Name, r.Status, agentsCell(r), human.Count(r.Usage.Tokens()),
			fmt.Sprintf("$%.4f", r.Usage.CostUSD), human.Age(now.Sub(r.CreatedAt)))
	}
	w.Flush()
}

// Statuses lists the run statuses, for a sentence: "running, completed, …".
func Statuses() string {
	var names []string
	for _, s := range ledger.RunStatuses() {
		names = append(names, string(s))
	}
	return strings.Join(names, ", ")
}

// Shown is one run with what wfrun show prints of it (its --json form).
type Shown struct {
	Run      ledger.Run     `json:"run"`
	Retries  []string       `json:"retries"` // the runs that retry or resume it
	Children []ledger.Child `json:"children"`
	Timeline []ledger.Event `json:"timeline"`
}

// Show reads the run id from l, with its children, timeline and the runs
// that retry or resume it. An unknown id is ledger.ErrNotFound, its
// sentence saying that wfrun runs lists the runs of l.
func Show(l *ledger.Ledger, id string) (Shown, error) {
	var s Shown
	var err error
	if s.Run, err = l.Get(context.Background(), id); errors.Is(err, ledger.ErrNotFound) {
		return s, fmt.Errorf("%w; wfrun runs lists the runs of %s", err, l.Path())
	} else if err != nil {
		return s, err
	}
	s.Children, err = l.Children(context.Background(), s.Run.ID)
	if err == nil {
		s.Timeline, err = l.Timeline(context.Background(), s.Run.ID)
	}
	var retries []ledger.Run
	if err == nil {
		retries, err = l.List(context.Background(), ledger.Filter{ParentRun: s.Run.ID})
	}
	if err != nil {
		return s, fmt.Errorf("the run ledger: %w", err)
	}
	s.Retries = []string{}
	for _, r := range retries {
		s.Retries = append(s.Retries, r.ID)
	}
	return s, nil
}

// WriteShown writes the run for a person: a header, the lineage, the
// children grouped by phase as a tree, and the timeline.
func WriteShown(out io.Writer, s Shown) {
	r := s.Run
	dur := ""
	if r.EndedAt != nil {
		dur = " · " + r.EndedAt.Sub(r.CreatedAt).Round(100*time.Millisecond).String()
	}
	fmt.Fprintf(out, "%s %q %s · %s agents · %s tokens · $%.4f%s\n", r.ID, r.Name, r.Status, agentsCell(r), human.Count(r.Usage.Tokens()), r.Usage.CostUSD, dur)
	fmt.Fprintf(out, "  owner %s · started %s", r.Owner, r.CreatedAt.Format(time.RFC3339))
	if r.Dir != "" {
		fmt.Fprintf(out, " · folder %s", r.Dir)
	}
	fmt.Fprintln(out)
	if r.ParentRun != "" {
		fmt.Fprintf(out, "  resumes %s\n", r.ParentRun)
	}
	if len(s.Retries) > 0 {
		fmt.Fprintf(out, "  retried or resumed as %s\n", strings.Join(s.Retries, ", "))
	}
	if r.Error != "" {
		fmt.Fprintf(out, "  %s: %s\n", r.ErrorCode, r.Error)
	}
	if len(s.Children) > 0 {
		fmt.Fprintln(out, "Agents")
		w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		phase := "\x00"
		for i, c := range s.Children {
			if c.Phase != phase {
				phase = c.Phase
				title := phase
				if title == "" {
					title = "(no phase)"
				}
				fmt.Fprintf(w, "  %s\t\t\t\t\t\n", title)
			}
			branch := "├─"
			if i == len(s.Children)-1 || s.Children[i+1].Phase != phase {
				branch = "└─"
			}
			note := ""
			if c.Replayed {
				note = "replayed"
			} else if c.Error != "" {
				note = human.FirstLine(c.Error, 80)
			}
			fmt.Fprintf(w, "  %s #%d %s\t%s\t%s\t%s tokens\t%s\n", branch, c.Seq, human.FirstLine(c.Label, 48), c.Status, childDuration(c), human.Count(c.Usage.Tokens()), note)
		}
		w.Flush()
	}
	if len(s.Timeline) > 0 {
		fmt.Fprintln(out, "Timeline")
		for _, ev := range s.Timeline {
			line := string(ev.Kind)
			if ev.Detail != "" {
				line += ": " + ev.Detail
			}
			fmt.Fprintf(out, "  %s  %s\n", ev.At.Format("2006-01-02 15:04:05"), line)
		}
	}
}

func childDuration(c ledger.Child) string {
	var meta struct {
		DurationMs *int64 `json:"durationMs"`
	}
	if json.Unmarshal(c.Metadata, &meta) != nil || meta.DurationMs == nil {
		return "-"
	}
	return (time.Duration(*meta.DurationMs) * time.Millisecond).Round(100 * time.Millisecond).String()
}

func agentsCell(r ledger.Run) string {
	if r.Agents.Replayed > 0 {
		return fmt.Sprintf("%d (%d replayed)", r.AgentsSpawned, r.Agents.Replayed)
	}
	return fmt.Sprint(r.AgentsSpawned)
}
