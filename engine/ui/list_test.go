package ui_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/ui"
)

const throws = `export const meta = { name: 'throws', description: 'one agent, then a throw' }
await agent('First note.', { label: 'first' })
throw new Error('the script gave up')`

const slow = `export const meta = { name: 'slow-one', description: 'one agent that takes its time' }
return await agent('Slow answer, please.', { label: 'slow' })`

const slowRules = `{"rules": [{"match": "^Slow", "delayMs": 30000}]}`

// groupsOf returns, for each group section of a list page, its group and
// its runs' ids.
func groupsOf(t *testing.T, a answer) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	doc := a.doc(t)
	for _, sec := range find(doc, byClass("section", "group")) {
		for _, tr := range find(sec, func(n *html.Node) bool { return n.Data == "tr" && attr(n, "data-run") != "" }) {
			out[attr(sec, "data-group")] = append(out[attr(sec, "data-group")], attr(tr, "data-run"))
		}
	}
	return out
}

func TestTheListGroupsRunsTheWayAPersonScansThem(t *testing.T) {
	r := newRig(t, ui.Config{}, readFile(t, "testdata/review.rules.json"))
	completed := r.review()
	failed := r.run(r.eng, throws, "", 0)
	live := r.engine(slowRules)
	stopped, err := live.Start(context.Background(), engine.WorkflowStartRequest{Script: slow, Parent: "test"})
	if err != nil {
		t.Fatal(err)
	}
	stopped.Cancel("the test stops it")
	stopped.Wait()
	working, err := live.Start(context.Background(), engine.WorkflowStartRequest{Script: slow, Parent: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer working.Cancel("the test is over")
	r.abandoned("wf_00000000000000ab", "died")

	page := r.get("/")
	if page.code != http.StatusOK {
		t.Fatalf("GET / = %d\n%s", page.code, page.body)
	}
	got := groupsOf(t, page)
	want := map[string][]string{
		"attention": {"wf_00000000000000ab"},
		"working":   {working.ID()},
		"completed": {completed.RunID},
		"failed":    {failed.RunID},
		"stopped":   {stopped.ID()},
	}
	for g, ids := range want {
		if !slices.Equal(got[g], ids) {
			t.Errorf("group %s holds %v, want %v", g, got[g], ids)
		}
	}
	// The groups come in the order a person acts on them.
	var order []string
	for _, sec := range find(page.doc(t), byClass("section", "group")) {
		order = append(order, attr(sec, "data-group"))
	}
	if !slices.Equal(order, []string{"attention", "working", "completed", "failed", "stopped"}) {
		t.Errorf("the groups come in the order %v", order)
	}
	// A row has the name, agents (with the failed ones), tokens, cost and age.
	row := find(page.doc(t), func(n *html.Node) bool { return attr(n, "data-run") == completed.RunID })[0]
	cells := text(row)
	for _, s := range []string{"release-review", "completed", "11", "2 failed", "$0.0000"} {
		if !strings.Contains(cells, s) {
			t.Errorf("the completed run's row %q lacks %q", cells, s)
		}
	}
}

func TestTheListFiltersByStatusAndName(t *testing.T) {
	r := newRig(t, ui.Config{}, readFile(t, "testdata/review.rules.json"))
	completed := r.review()
	failed := r.run(r.eng, throws, "", 0)
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"/?status=failed", []string{failed.RunID}},
		{"/?status=completed", []string{completed.RunID}},
		{"/?name=REVIEW", []string{completed.RunID}},
		{"/?name=thr&status=failed", []string{failed.RunID}},
		{"/?name=thr&status=completed", nil},
		{"/list?status=failed", []string{failed.RunID}},
	} {
		t.Run(c.query, func(t *testing.T) {
			page := r.get(c.query)
			var ids []string
			for _, g := range groupsOf(t, page) {
				ids = append(ids, g...)
			}
			if !slices.Equal(ids, c.want) {
				t.Errorf("%s lists %v, want %v", c.query, ids, c.want)
			}
			if c.want == nil && !strings.Contains(page.body, "No run matches the filter") {
				t.Errorf("an empty result says nothing:\n%s", page.body)
			}
		})
	}
	t.Run("a status that is not one", func(t *testing.T) {
		page := r.get("/?status=exploded")
		if !strings.Contains(page.body, `status &#34;exploded&#34; is not a run status`) {
			t.Errorf("an unknown status is not refused with a sentence:\n%s", page.body)
		}
	})
	t.Run("the list fragment is the body alone", func(t *testing.T) {
		frag := r.get("/list")
		if strings.Contains(frag.body, "<html") || !strings.Contains(frag.body, completed.RunID) {
			t.Errorf("/list is not the list's fragment:\n%s", frag.body)
		}
	})
}

func TestAnEmptyLedgerSaysHowRunsGetThere(t *testing.T) {
	r := newRig(t, ui.Config{}, "")
	page := r.get("/")
	if page.code != http.StatusOK || !strings.Contains(page.body, "No runs yet") {
		t.Fatalf("GET / on an empty ledger = %d\n%s", page.code, page.body)
	}
}
