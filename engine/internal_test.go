package engine

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/wfrun/wfrun/runtime"
)

func TestWorkflowIndex_LookupsNeverTouchTheCompileCache(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		src := "export const meta = {name:'w-" + name + "', description:'d'}\nreturn 1"
		if err := os.WriteFile(filepath.Join(dir, name+".js"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e, err := New(Config{WorkflowsDir: dir, ScriptCache: 2})
	if err != nil {
		t.Fatal(err)
	}
	caller := e.cache.get("caller.js", "export const meta = {name:'c', description:'d'}\nreturn 1")

	for i := 0; i < 3; i++ {
		if _, err := e.workflows.load("missing"); err == nil {
			t.Fatal("a missing workflow was found")
		}
	}
	if got := e.cache.get("caller.js", "export const meta = {name:'c', description:'d'}\nreturn 1"); got != caller {
		t.Fatal("looking up workflows evicted the caller's compiled script")
	}
	if len(e.cache.m) != 1 {
		t.Fatalf("the compile cache holds %d entries after workflow lookups, want only the caller's", len(e.cache.m))
	}

	// An unchanged file is not checked again; a changed one is.
	first := e.workflows.files[filepath.Join(dir, "c.js")].c
	if _, err := e.workflows.load("w-c"); err != nil {
		t.Fatal(err)
	}
	if e.workflows.files[filepath.Join(dir, "c.js")].c != first {
		t.Fatal("an unchanged saved workflow was compiled again")
	}
	if err := os.WriteFile(filepath.Join(dir, "c.js"), []byte("export const meta = {name:'w-c', description:'changed'}\nreturn 2"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := e.workflows.load("w-c"); err != nil {
		t.Fatal(err)
	}
	if e.workflows.files[filepath.Join(dir, "c.js")].c == first {
		t.Fatal("a changed saved workflow was not checked again")
	}

	// A deleted file is forgotten.
	if err := os.Remove(filepath.Join(dir, "e.js")); err != nil {
		t.Fatal(err)
	}
	_, _ = e.workflows.load("missing")
	if _, ok := e.workflows.files[filepath.Join(dir, "e.js")]; ok {
		t.Fatal("a deleted saved workflow is still indexed")
	}
}

func TestEngine_ARunIsCompleteWhenCloseCanSeeIt(t *testing.T) {
	// Close cancels every run it finds in e.runs, and may find one the
	// moment Start has published it: by then the run's cancel function must
	// be set. The hook does what Close does at that moment.
	e, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	e.testHookPublished = func() {
		for _, r := range e.liveRuns() {
			r.Cancel("the engine is closing")
		}
	}
	run, err := e.Start(context.Background(), WorkflowStartRequest{Parent: "p",
		Script: "export const meta = {name:'n', description:'d'}\nreturn await agent('x')"})
	if err != nil {
		t.Fatal(err)
	}
	if res := run.Wait(); res.StopReason != StopCancelled {
		t.Fatalf("a run cancelled as it was published ended %s: %s", res.StopReason, res.Error)
	}
	if err := e.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestEngine_ARunIsNoLongerLiveWhenWaitReturns(t *testing.T) {
	// A caller may retry or resume a run the moment Wait returns; it must
	// not be told the run is still running.
	e, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	for i := 0; i < 1000; i++ {
		run, err := e.Start(context.Background(), WorkflowStartRequest{Parent: "p",
			Script: "export const meta = {name:'n', description:'d'}\nreturn 1"})
		if err != nil {
			t.Fatal(err)
		}
		run.Wait()
		for _, r := range e.liveRuns() {
			if r.id == run.ID() {
				t.Fatalf("iteration %d: a settled run is still live", i)
			}
		}
	}
}

func TestRunPlan_ConfigGivesBackEveryLimitPlanResolved(t *testing.T) {
	e, err := New(Config{Concurrency: 3, MaxTotalAgents: 50, MaxItems: 70, RunTimeout: time.Minute, AgentTimeout: 10 * time.Second,
		BudgetTokens: 1000, CancelGrace: 2 * time.Second, MaxResultBytes: 4096, MaxMemory: 64 << 20, MaxCallStackSize: 500})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = e.Close(context.Background()) }()
	req := WorkflowStartRequest{Script: "export const meta = {name:'p', description:'d'}\nreturn 1", Parent: "test",
		MaxTotalAgents: 20, BudgetTokens: 500, TimeoutMs: 30_000}
	plan, err := e.Plan(req)
	if err != nil {
		t.Fatal(err)
	}
	p, err := e.prepare(req)
	if err != nil {
		t.Fatal(err)
	}
	// What the run's scheduler adds of its own is left out of both.
	want := runtime.WithDefaults(p.cfg)
	want.Parent, want.Script, want.Args, want.Provider, want.LoadWorkflow, want.Emit = "", nil, nil, nil, nil, nil
	got := runtime.WithDefaults(plan.Config())
	got.Emit = nil
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("the plan's config:\n%+v\nwant the one Start would run with:\n%+v", got, want)
	}
}
