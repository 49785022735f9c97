package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/wfrun/wfrun/engine"
	wftemporal "github.com/wfrun/wfrun/engine/temporal"
	"github.com/wfrun/wfrun/internal/testkit/leaktest"
	"github.com/wfrun/wfrun/internal/testkit/testbin"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

// devServer returns the dev server binary, skipping t without it.
func devServerBin(t *testing.T) string {
	t.Helper()
	bin := os.Getenv("WFRUN_TEMPORAL_DEV")
	if bin == "" {
		t.Skip("WFRUN_TEMPORAL_DEV is not set: build engine/temporal/server/cmd/wfrun-temporal (GOTOOLCHAIN=go1.27.3) and name it there")
	}
	return bin
}

func TestScaleBench_SmokeRunPrintsBothFiguresAndTheRatio(t *testing.T) {
	dev := devServerBin(t)
	wfrun := testbin.BuildT(t, "github.com/wfrun/wfrun/cmd/wfrun")
	var stdout, stderr strings.Builder
	if code := run([]string{"-smoke", "-dev", dev, "-wfrun", wfrun}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	for _, want := range []string{"round 1: 1 worker ", "; 2 workers ", "median: 1 worker ", "ratio "} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("the report does not say %q:\n%s", want, stdout.String())
		}
	}
}

// slowEnv, set to 1, runs the end-to-end tests that take about a minute.
const slowEnv = "WFRUN_TEMPORAL_SLOW"

func TestKill_AWorkerKilledDuring50RunsLosesNoRunAndNoFinishedAgentIsAskedTwice(t *testing.T) {
	dev := devServerBin(t)
	if os.Getenv(slowEnv) != "1" {
		t.Skip("set " + slowEnv + "=1: the cluster notices the killed worker after its heartbeat timeout, 20 s, and a workflow task it held after the task's timeout, a minute")
	}
	wfrun := testbin.BuildT(t, "github.com/wfrun/wfrun/cmd/wfrun")
	ep, err := newEndpoint(200 * time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ep.close)
	srv, err := startDevServer(dev)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.stop)
	home := t.TempDir()
	spec := workerSpec{wfrun: wfrun, addr: srv.addr, taskQueue: "kill", payloads: filepath.Join(home, "payloads"),
		home: home, maxConcurrentAgents: 4, ep: ep}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var workers []*workerProc
	for _, name := range []string{"w1", "w2"} {
		w, err := startWorker(ctx, spec, name)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(w.stop)
		workers = append(workers, w)
	}
	opts := wftemporal.Options{TaskQueue: spec.taskQueue, Payloads: wftemporal.DirStore{Dir: spec.payloads}}
	c, err := wftemporal.Dial(srv.addr, "", opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	eng, err := engine.New(engine.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = eng.Close(context.Background()) })

	const n = 50
	runs, err := startRuns(ctx, wftemporal.NewClient(c, eng, opts), "kill", n)
	if err != nil {
		t.Fatal(err)
	}
	// Kill w1 with agents finished behind it and at least one in its
	// hands: once it has 40 answers (about 80 of the 200 agents are done),
	// its requests are held unanswered, and it dies as a machine does
	// (SIGKILL) while one is held.
	if err := ep.waitFor(ctx, func(c counts) bool { return c.Workers["w1"].Answered >= 40 }); err != nil {
		t.Fatalf("w1 did not get 40 answers: %v\n%s", err, workers[0].stderr.String())
	}
	ep.hold("w1")
	if err := ep.waitFor(ctx, func(c counts) bool { return c.Workers["w1"].Held > 0 }); err != nil {
		t.Fatalf("w1 asked nothing more: %v\n%s", err, workers[0].stderr.String())
	}
	atKill := ep.snapshot()
	workers[0].kill()
	killed := time.Now()
	t.Logf("w1 killed after %d answers, with %d requests in flight; w2 had %d answers", atKill.Workers["w1"].Answered, atKill.Workers["w1"].InFlight, atKill.Workers["w2"].Answered)

	if err := waitRuns(ctx, runs); err != nil {
		t.Fatalf("%v\nw2:\n%s", err, workers[1].stderr.String())
	}
	t.Logf("the runs finished %s after the kill", time.Since(killed).Round(time.Second))
	seen := ep.snapshot()
	if seen.Workers["w2"].Answered <= atKill.Workers["w2"].Answered {
		t.Errorf("w2 answered nothing after w1 was killed")
	}

	// Every agent of every run, from the histories: its prompt, and the
	// attempt that completed it. An attempt asks the endpoint at most
	// once, so a prompt asked more often than its completing attempt's
	// number was asked again after it had finished.
	retried, taskTimeouts := 0, 0
	prompts := map[string]bool{}
	conv := wftemporal.NewDataConverter(opts.Payloads)
	for _, run := range runs {
		agents, timeouts := agentsOf(t, c, conv, run.ID())
		taskTimeouts += timeouts
		if len(agents) != agentsPerRun {
			t.Errorf("run %s scheduled %d agents, want %d: an agent was asked again by the workflow", run.ID(), len(agents), agentsPerRun)
		}
		for _, a := range agents {
			if prompts[a.prompt] {
				t.Errorf("prompt %q was scheduled twice", a.prompt)
			}
			prompts[a.prompt] = true
			if !a.completed {
				t.Errorf("run %s: agent %q did not complete", run.ID(), a.prompt)
			}
			if a.attempt > 1 {
				retried++
			}
		}
		for _, p := range askedAgain(agents, seen) {
			t.Error(p)
		}
	}
	if len(prompts) != n*agentsPerRun || len(seen.Prompts) != n*agentsPerRun {
		t.Errorf("%d prompts in the histories and %d at the endpoint, want %d", len(prompts), len(seen.Prompts), n*agentsPerRun)
	}
	if retried == 0 {
		t.Errorf("no agent needed a second attempt: the kill cut none short")
	}
	t.Logf("%d runs completed; %d agents were cut short by the kill and run again; %d workflow tasks were in the killed worker's hands (each waits out the task timeout, a minute); the endpoint saw w1 %+v, w2 %+v",
		n, retried, taskTimeouts, seen.Workers["w1"], seen.Workers["w2"])
}

// agent is one agent activity of a history.
type agent struct {
	prompt    string
	attempt   int
	completed bool
}

// askedAgain says which of agents the endpoint was asked more often
// than by the attempts that ran them: an attempt asks once (or not at
// all, when its worker died first), so a prompt asked more often than
// the number of the attempt that completed it was asked again after it
// had finished. An agent completed on its first attempt was answered
// exactly once.
func askedAgain(agents []*agent, seen counts) []string {
	var out []string
	for _, a := range agents {
		c := seen.Prompts[a.prompt]
		switch {
		case c.Asked < 1:
			out = append(out, fmt.Sprintf("agent %q completed and the endpoint never saw it", a.prompt))
		case c.Asked > a.attempt:
			out = append(out, fmt.Sprintf("agent %q was asked %d times at the endpoint and completed on attempt %d: a finished agent was asked again", a.prompt, c.Asked, a.attempt))
		case a.attempt == 1 && c.Answered != 1:
			out = append(out, fmt.Sprintf("agent %q completed on its first attempt and was answered %d times", a.prompt, c.Answered))
		}
	}
	return out
}

// agentsOf reads the agent activities of the workflow id's history, and
// counts its workflow tasks that a worker started and never finished.
func agentsOf(t *testing.T, c client.Client, conv converter.DataConverter, id string) (agents []*agent, taskTimeouts int) {
	t.Helper()
	bySchedule := map[int64]*agent{}
	var out []*agent
	it := c.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
			at := ev.GetActivityTaskScheduledEventAttributes()
			if at.GetActivityType().GetName() != "wfrun.agent" {
				continue
			}
			var call wftemporal.AgentCall
			if err := conv.FromPayloads(at.GetInput(), &call); err != nil {
				t.Fatalf("run %s: the input of activity %s: %v", id, at.GetActivityId(), err)
			}
			a := &agent{prompt: call.Request.Prompt}
			bySchedule[ev.GetEventId()] = a
			out = append(out, a)
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_STARTED:
			if a := bySchedule[ev.GetActivityTaskStartedEventAttributes().GetScheduledEventId()]; a != nil {
				a.attempt = int(ev.GetActivityTaskStartedEventAttributes().GetAttempt())
			}
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
			if a := bySchedule[ev.GetActivityTaskCompletedEventAttributes().GetScheduledEventId()]; a != nil {
				a.completed = true
			}
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT:
			// A task sent to the killed worker's sticky queue times out
			// in seconds; one it had started, after the task timeout.
			if ev.GetWorkflowTaskTimedOutEventAttributes().GetTimeoutType() == enumspb.TIMEOUT_TYPE_START_TO_CLOSE {
				taskTimeouts++
			}
		}
	}
	return out, taskTimeouts
}
