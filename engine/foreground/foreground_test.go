package foreground_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/foreground"
	"github.com/wfrun/wfrun/engine/setup"
	"github.com/wfrun/wfrun/internal/testkit/leaktest"
)

// The engine, its runs and the progress line have goroutines of their
// own: none may outlive Close.
func TestMain(m *testing.M) {
	leaktest.VerifyTestMain(m)
}

// notices collects what a Terminal shows.
type notices struct {
	mu    sync.Mutex
	lines []string
}

func (n *notices) add(s string) { n.mu.Lock(); n.lines = append(n.lines, s); n.mu.Unlock() }

func (n *notices) all() string { n.mu.Lock(); defer n.mu.Unlock(); return strings.Join(n.lines, "\n") }

// invocation reads a run of script, whose agents answer after a pause
// when their prompt starts with "slow", as wfrun SCRIPT.js would.
func invocation(t *testing.T, script string) *setup.Invocation {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, "w.js")
	rules := filepath.Join(dir, "rules.json")
	if err := os.WriteFile(file, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rules, []byte(`{"rules":[{"match":"^slow","delayMs":600000}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	environ := map[string]string{"HOME": dir, "WFRUN_STATE_DIR": filepath.Join(dir, "state")}
	inv, err := setup.Load(setup.Inputs{
		Script: file, Meta: `{"name":"w","description":"a test"}`, FakeRules: rules, DefaultParent: "test",
		Workspace: dir, RunsDir: filepath.Join(dir, "runs"),
		Providers: setup.Options{Getenv: func(k string) string { return environ[k] }},
	})
	if err != nil {
		t.Fatal(err)
	}
	return inv
}

func TestFollow(t *testing.T) {
	for _, c := range []struct {
		name        string
		script      string
		signals     int
		stop        engine.StopReason
		interrupted bool
		says        string // in the result's error
	}{
		{name: "a run that completes", script: `return await agent("quick")`, stop: engine.StopCompleted},
		{name: "a signal cancels the run", script: `return await agent("slow")`, signals: 1, stop: engine.StopCancelled, interrupted: true, says: "interrupted by SIGTERM"},
		{name: "a run that does not start", script: `return await agent(`, stop: engine.StopError},
	} {
		t.Run(c.name, func(t *testing.T) {
			inv := invocation(t, c.script)
			sigs := make(chan os.Signal, 1)
			for range c.signals {
				sigs <- syscall.SIGTERM
			}
			var n notices
			events := filepath.Join(t.TempDir(), "events.jsonl")
			s, err := foreground.Open(context.Background(), inv, foreground.Terminal{Stderr: &strings.Builder{}, Signals: sigs, Notify: n.add}, foreground.Options{Events: events})
			if err != nil {
				t.Fatal(err)
			}
			f := s.Follow(func(onEvent func(engine.Event)) (*engine.Run, error) {
				if onEvent != nil {
					t.Error("a progress line on a writer that is no terminal")
				}
				inv.Request.OnEvent = onEvent
				return s.Engine.Start(context.Background(), inv.Request)
			})
			s.Close()
			if f.Result.StopReason != c.stop || f.Interrupted != c.interrupted || f.Abandoned != nil {
				t.Fatalf("Follow = %+v; want stop %s, interrupted %v", f, c.stop, c.interrupted)
			}
			if c.says != "" && !strings.Contains(f.Result.Error, c.says) {
				t.Errorf("the result's error is %q, want one saying %q", f.Result.Error, c.says)
			}
			logged, err := os.ReadFile(events)
			if err != nil {
				t.Fatal(err)
			}
			if started := strings.Contains(string(logged), `"run.start"`); started != (c.stop != engine.StopError) {
				t.Errorf("the event log holds run.start: %v; log:\n%s", started, logged)
			}
			if got := n.all(); got != "" {
				t.Errorf("notices %q, want none", got)
			}
		})
	}
}

func TestWaitGivesUpOnTheSecondSignal(t *testing.T) {
	sigs := make(chan os.Signal, 2)
	sigs <- os.Interrupt
	sigs <- syscall.SIGTERM
	var n notices
	stops := 0
	out := foreground.Wait(foreground.Terminal{Signals: sigs, Notify: n.add}, nil, "the parent agent", make(chan int), func(os.Signal) { stops++ })
	if out.Interrupted != os.Interrupt || out.Abandoned != syscall.SIGTERM || stops != 1 {
		t.Errorf("Wait = %+v after %d stops; want interrupted by SIGINT, abandoned on SIGTERM, one stop", out, stops)
	}
	if got, want := n.all(), "second SIGTERM: exiting without waiting for the parent agent"; got != want {
		t.Errorf("notice %q, want %q", got, want)
	}
}

func TestOutput(t *testing.T) {
	var stderr strings.Builder
	term := foreground.Terminal{Stderr: &stderr}
	none, err := foreground.OpenOutput("", term)
	if err != nil || none.Sink() != nil || none.Progress() != nil {
		t.Fatalf("OpenOutput(\"\") = %v, sink set %v", err, none != nil && none.Sink() != nil)
	}
	none.Close()
	toStderr, err := foreground.OpenOutput("-", term)
	if err != nil {
		t.Fatal(err)
	}
	toStderr.Sink()(engine.Event{Type: engine.EventRunStart, RunID: "r1"})
	toStderr.Close()
	if !strings.Contains(stderr.String(), `"runId":"r1"`) {
		t.Errorf("--events - wrote %q", stderr.String())
	}
	_, err = foreground.OpenOutput(filepath.Join(t.TempDir(), "missing", "events.jsonl"), term)
	var ie *setup.InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "--events") {
		t.Errorf("an event log that cannot be created: %v, want an *setup.InputError naming --events", err)
	}
}

func TestOpenSaysWhichProviderARequestGets(t *testing.T) {
	inv := invocation(t, `return 1`)
	inv.Request.SubagentProvider = ""
	var n notices
	s, err := foreground.Open(context.Background(), inv, foreground.Terminal{Notify: n.add}, foreground.Options{Announce: true})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if !strings.Contains(n.all(), "offline fake provider") {
		t.Errorf("notices %q, want the default provider's", n.all())
	}
}
