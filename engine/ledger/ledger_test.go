package ledger_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine/ledger"
	"github.com/wfrun/wfrun/internal/testkit/leaktest"
)

func TestMain(m *testing.M) {
	if os.Getenv("WFRUN_LEDGER_WRITER") != "" {
		os.Exit(writer())
	}
	leaktest.VerifyTestMain(m)
}

// clock is a settable time for lease tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func open(t *testing.T, path string, c *clock) *ledger.Ledger {
	t.Helper()
	o := ledger.Options{Lease: 10 * time.Second}
	if c != nil {
		o.Now = c.now
	}
	l, err := ledger.Open(path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func TestOpen_AppliesTheMigrationsOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "ledger.db")
	l := open(t, path, nil)
	v, err := l.SchemaVersion(context.Background())
	if err != nil || v != 2 {
		t.Fatalf("version %d, %v", v, err)
	}
	l.Close()
	again := open(t, path, nil)
	if v, _ := again.SchemaVersion(context.Background()); v != 2 {
		t.Fatalf("reopened at version %d", v)
	}
	db := openRaw(t, path)
	defer db.Close()
	var mode string
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal mode %q, %v", mode, err)
	}
}

func TestOpen_RefusesANewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.db")
	l := open(t, path, nil)
	l.Close()
	db := openRaw(t, path)
	if _, err := db.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, err := ledger.Open(path, ledger.Options{}); err == nil || !strings.Contains(err.Error(), "newer than this wfrun") {
		t.Fatalf("err = %v", err)
	}
}

func TestARunsLifeInTheLedger(t *testing.T) {
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	l := open(t, filepath.Join(t.TempDir(), "ledger.db"), c)
	if err := l.Begin(t.Context(), ledger.Run{ID: "wf_a", Owner: "cli", Name: "audit", Dir: "/runs/wf_a"}); err != nil {
		t.Fatal(err)
	}
	r, err := l.Get(context.Background(), "wf_a")
	if err != nil || r.Status != ledger.RunRunning || !r.LeaseUntil.Equal(c.now().Add(10*time.Second)) || r.PID != os.Getpid() {
		t.Fatalf("%+v, %v", r, err)
	}
	c.add(5 * time.Second)
	stop, err := l.Heartbeat(t.Context(), "wf_a", []ledger.Child{{RunID: "wf_a", AgentID: "ag_1", Seq: 1, Label: "first", Status: ledger.ChildRunning, PromptExcerpt: "do it"}})
	if err != nil || stop != "" {
		t.Fatalf("heartbeat: %q, %v", stop, err)
	}
	done := ledger.Child{RunID: "wf_a", AgentID: "ag_1", Seq: 1, Label: "first", Status: ledger.ChildCompleted, ResultExcerpt: "done", Usage: agentapi.Usage{InputTokens: 7}}
	if err := l.Finish(t.Context(), ledger.Run{ID: "wf_a", Status: ledger.RunCompleted, StopReason: "completed", AgentsSpawned: 1,
		Agents: ledger.Counts{Completed: 1}, Usage: agentapi.Usage{InputTokens: 7}}, []ledger.Child{done}); err != nil {
		t.Fatal(err)
	}
	r, _ = l.Get(context.Background(), "wf_a")
	if r.Status != ledger.RunCompleted || r.EndedAt == nil || r.Usage.InputTokens != 7 || r.Agents.Completed != 1 {
		t.Fatalf("finished run %+v", r)
	}
	kids, err := l.Children(context.Background(), "wf_a")
	if err != nil || len(kids) != 1 || kids[0].Status != ledger.ChildCompleted || kids[0].PromptExcerpt != "do it" || kids[0].ResultExcerpt != "done" {
		t.Fatalf("children %+v, %v", kids, err)
	}
	tl, _ := l.Timeline(context.Background(), "wf_a")
	if len(tl) != 2 || tl[0].Kind != ledger.KindStarted || tl[1].Kind != ledger.KindFinished || tl[1].Detail != "completed" {
		t.Fatalf("timeline %+v", tl)
	}
	if _, err := l.Get(context.Background(), "wf_none"); !errors.Is(err, ledger.ErrNotFound) {
		t.Fatalf("a missing run: %v", err)
	}
}

func TestARunWhoseLeaseExpiredIsAbandonedOnTheNextOpen(t *testing.T) {
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	path := filepath.Join(t.TempDir(), "ledger.db")
	l := open(t, path, c)
	for _, id := range []string{"wf_dead", "wf_alive"} {
		if err := l.Begin(t.Context(), ledger.Run{ID: id, Owner: "cli", Name: "n"}); err != nil {
			t.Fatal(err)
		}
		if _, err := l.Heartbeat(t.Context(), id, []ledger.Child{{RunID: id, AgentID: "ag", Seq: 1, Status: ledger.ChildRunning},
			{RunID: id, AgentID: "ag2", Seq: 2, Status: ledger.ChildCompleted}}); err != nil {
			t.Fatal(err)
		}
	}
	c.add(8 * time.Second)
	if _, err := l.Heartbeat(t.Context(), "wf_alive", nil); err != nil { // wf_dead's process has died: no more beats
		t.Fatal(err)
	}
	c.add(8 * time.Second) // past wf_dead's lease, within wf_alive's
	// The PID is this live process's, yet the run is abandoned: the lease decides.
	other := open(t, path, c)
	dead, _ := other.Get(context.Background(), "wf_dead")
	alive, _ := other.Get(context.Background(), "wf_alive")
	if dead.Status != ledger.RunAbandoned || alive.Status != ledger.RunRunning {
		t.Fatalf("dead %s, alive %s", dead.Status, alive.Status)
	}
	kids, _ := other.Children(context.Background(), "wf_dead")
	if kids[0].Status != ledger.ChildAbandoned || kids[1].Status != ledger.ChildCompleted {
		t.Fatalf("children %+v", kids)
	}
	tl, _ := other.Timeline(context.Background(), "wf_dead")
	if last := tl[len(tl)-1]; last.Kind != ledger.KindAbandoned || !strings.Contains(last.Detail, "lease expired") {
		t.Fatalf("timeline %+v", tl)
	}
	if _, err := l.Heartbeat(t.Context(), "wf_dead", nil); err == nil || !strings.Contains(err.Error(), "no longer running") {
		t.Fatalf("a beat after abandonment: %v", err)
	}
}

func TestApply(t *testing.T) {
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	l := open(t, filepath.Join(t.TempDir(), "ledger.db"), c)
	if err := l.Begin(t.Context(), ledger.Run{ID: "wf_a", Owner: "cli", Name: "n"}); err != nil {
		t.Fatal(err)
	}
	t.Run("stop asks the run's process to cancel it", func(t *testing.T) {
		tr, before, err := l.Apply(t.Context(), "wf_a", ledger.Stop, "enough")
		if err != nil || tr.To != ledger.RunCancelled || before.Status != ledger.RunRunning {
			t.Fatalf("%+v %+v %v", tr, before, err)
		}
		stop, err := l.Heartbeat(t.Context(), "wf_a", nil)
		if err != nil || stop != "enough" {
			t.Fatalf("the heartbeat returned %q, %v", stop, err)
		}
	})
	t.Run("an illegal verb is refused and changes nothing", func(t *testing.T) {
		if _, _, err := l.Apply(t.Context(), "wf_a", ledger.Continue, ""); err == nil || !strings.Contains(err.Error(), "cannot continue run wf_a") {
			t.Fatalf("err = %v", err)
		}
		if _, _, err := l.Apply(t.Context(), "wf_none", ledger.FollowUp, "x"); !errors.Is(err, ledger.ErrNotFound) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("continue claims an abandoned run once", func(t *testing.T) {
		c.add(time.Minute)
		if n, err := l.Sweep(t.Context()); err != nil || n != 1 {
			t.Fatalf("swept %d, %v", n, err)
		}
		if _, _, err := l.Apply(t.Context(), "wf_a", ledger.Continue, ""); err != nil {
			t.Fatal(err)
		}
		if r, _ := l.Get(context.Background(), "wf_a"); r.Status != ledger.RunRunning || !r.LeaseUntil.After(c.now()) {
			t.Fatalf("continued run %+v", r)
		}
		if _, _, err := l.Apply(t.Context(), "wf_a", ledger.Continue, ""); err == nil {
			t.Fatal("a second continue was allowed")
		}
	})
	t.Run("a note is on the timeline and the status stays", func(t *testing.T) {
		if _, _, err := l.Apply(t.Context(), "wf_a", ledger.FollowUp, "check the flaky test"); err != nil {
			t.Fatal(err)
		}
		tl, _ := l.Timeline(context.Background(), "wf_a")
		last := tl[len(tl)-1]
		if last.Kind != ledger.KindFollowUp || last.Detail != "check the flaky test" {
			t.Fatalf("timeline %+v", tl)
		}
		if r, _ := l.Get(context.Background(), "wf_a"); r.Status != ledger.RunRunning {
			t.Fatalf("status %s", r.Status)
		}
	})
}

func TestList_FiltersAndOrder(t *testing.T) {
	c := &clock{t: time.Unix(1_800_000_000, 0)}
	l := open(t, filepath.Join(t.TempDir(), "ledger.db"), c)
	for i, name := range []string{"audit", "review", "audit"} {
		id := fmt.Sprintf("wf_%d", i)
		if err := l.Begin(t.Context(), ledger.Run{ID: id, Owner: "cli", Name: name}); err != nil {
			t.Fatal(err)
		}
		c.add(time.Second)
	}
	l.Finish(t.Context(), ledger.Run{ID: "wf_0", Status: ledger.RunFailed}, nil)
	ids := func(f ledger.Filter) string {
		runs, err := l.List(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range runs {
			out = append(out, r.ID)
		}
		return strings.Join(out, ",")
	}
	for _, c := range []struct {
		f    ledger.Filter
		want string
	}{
		{ledger.Filter{}, "wf_2,wf_1,wf_0"},
		{ledger.Filter{Name: "audit"}, "wf_2,wf_0"},
		{ledger.Filter{Status: ledger.RunFailed}, "wf_0"},
		{ledger.Filter{Status: ledger.RunRunning, Name: "audit"}, "wf_2"},
		{ledger.Filter{Limit: 1}, "wf_2"},
		{ledger.Filter{Owner: "mcp"}, ""},
	} {
		if got := ids(c.f); got != c.want {
			t.Errorf("%+v: %s, want %s", c.f, got, c.want)
		}
	}
}

// writer is the helper process of the concurrency test: it writes runs and
// children to the ledger named in its environment.
func writer() int {
	l, err := ledger.Open(os.Getenv("WFRUN_LEDGER_WRITER"), ledger.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer l.Close()
	prefix := os.Getenv("WFRUN_LEDGER_PREFIX")
	ctx := context.Background()
	n, _ := strconv.Atoi(os.Getenv("WFRUN_LEDGER_RUNS"))
	for i := range n {
		id := fmt.Sprintf("wf_%s%d", prefix, i)
		if err := l.Begin(ctx, ledger.Run{ID: id, Owner: prefix, Name: "load"}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		kids := []ledger.Child{{RunID: id, AgentID: "ag_1", Seq: 1, Status: ledger.ChildRunning}, {RunID: id, AgentID: "ag_2", Seq: 2, Status: ledger.ChildRunning}}
		if _, err := l.Heartbeat(ctx, id, kids); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		kids[0].Status, kids[1].Status = ledger.ChildCompleted, ledger.ChildFailed
		if err := l.Finish(ctx, ledger.Run{ID: id, Status: ledger.RunCompleted}, kids); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if _, _, err := l.Apply(ctx, id, ledger.FollowUp, "note"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

func TestTwoProcessesWritingOneLedgerAtOnceDoNotCorruptIt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	path := filepath.Join(t.TempDir(), "ledger.db") // created by whichever process comes first
	const runs = 150
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for _, prefix := range []string{"a", "b"} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "WFRUN_LEDGER_WRITER="+path, "WFRUN_LEDGER_PREFIX="+prefix, "WFRUN_LEDGER_RUNS="+strconv.Itoa(runs))
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("writer %s: %v\n%s", prefix, err, out)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	l := open(t, path, nil)
	all, err := l.List(context.Background(), ledger.Filter{})
	if err != nil || len(all) != 2*runs {
		t.Fatalf("%d runs, %v", len(all), err)
	}
	for _, r := range all {
		kids, _ := l.Children(context.Background(), r.ID)
		tl, _ := l.Timeline(context.Background(), r.ID)
		if r.Status != ledger.RunCompleted || len(kids) != 2 || len(tl) != 3 {
			t.Fatalf("run %s: %s, %d children, %d timeline entries", r.ID, r.Status, len(kids), len(tl))
		}
	}
	db := openRaw(t, path)
	defer db.Close()
	var check string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q, %v", check, err)
	}
}

// A write runs under its caller's context: a caller that has given up
// gets the context's error, and nothing is written.
func TestAWriteHonoursItsCallersContext(t *testing.T) {
	l := open(t, filepath.Join(t.TempDir(), "ledger.db"), &clock{t: time.Unix(1000, 0)})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := l.Begin(ctx, ledger.Run{ID: "wf_gone"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Begin with a cancelled context: %v, want context.Canceled", err)
	}
	if _, err := l.Get(t.Context(), "wf_gone"); err == nil {
		t.Fatal("the run was written although its caller had cancelled")
	}
	if _, err := l.CreateSubagent(ctx, ledger.Subagent{ID: "sa_gone", Owner: "mcp", Provider: "fake"}, "sh_1", "hello"); !errors.Is(err, context.Canceled) {
		t.Fatalf("CreateSubagent (a durable write) with a cancelled context: %v, want context.Canceled", err)
	}
	if err := l.Begin(t.Context(), ledger.Run{ID: "wf_here"}); err != nil {
		t.Fatalf("a write after a cancelled durable one: %v", err)
	}
}

// A read runs under its caller's context too: a caller that has given up
// gets the context's error instead of the row.
func TestAReadHonoursItsCallersContext(t *testing.T) {
	l := open(t, filepath.Join(t.TempDir(), "ledger.db"), &clock{t: time.Unix(1000, 0)})
	if err := l.Begin(t.Context(), ledger.Run{ID: "wf_here"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for name, read := range map[string]func() error{
		"Get":      func() error { _, err := l.Get(ctx, "wf_here"); return err },
		"List":     func() error { _, err := l.List(ctx, ledger.Filter{}); return err },
		"Children": func() error { _, err := l.Children(ctx, "wf_here"); return err },
		"Timeline": func() error { _, err := l.Timeline(ctx, "wf_here"); return err },
		"Queued":   func() error { _, err := l.Queued(ctx, "sa_none"); return err },
	} {
		if err := read(); !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context: %v, want context.Canceled", name, err)
		}
	}
	if _, err := l.Get(t.Context(), "wf_here"); err != nil {
		t.Fatalf("Get with a live context: %v", err)
	}
}
