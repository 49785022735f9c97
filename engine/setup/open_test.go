package setup_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/setup"
	"github.com/wfrun/wfrun/internal/wferr"
)

func TestOpen(t *testing.T) {
	script := write(t, "plain.js", "return 1")
	for _, c := range []struct {
		name    string
		environ map[string]string
		build   setup.Build
		code    wferr.Code // "" for an engine
		notices []string   // sentences the notices must hold, in order
	}{
		{name: "the offline default is announced", build: setup.Build{Announce: true},
			notices: []string{"no provider configured"}},
		{name: "not announced", build: setup.Build{}},
		{name: "a bad heartbeat", environ: map[string]string{"WFRUN_HEARTBEAT": "soon"}, code: wferr.InvalidRequest},
		{name: "openai asked for but not configured", environ: map[string]string{"WFRUN_TEST_PROVIDER": "openai"}, code: wferr.AgentStart},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := inputs(t, c.environ)
			in.Script, in.RunsDir = script, filepath.Join(t.TempDir(), "runs")
			in.Fields.SubagentProvider = c.environ["WFRUN_TEST_PROVIDER"]
			inv, err := setup.Load(in)
			if err != nil {
				t.Fatal(err)
			}
			var notices []string
			b := c.build
			b.Notify = func(s string) { notices = append(notices, s) }
			eng, err := setup.Open(context.Background(), inv, b)
			if c.code != "" {
				if wferr.CodeOf(err) != c.code {
					t.Fatalf("Open: %v, want code %s", err, c.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := eng.Close(); err != nil {
				t.Error(err)
			}
			eng.Stop() // twice is fine
			if len(notices) != len(c.notices) {
				t.Fatalf("notices %q, want %q", notices, c.notices)
			}
			for i, want := range c.notices {
				if !strings.Contains(notices[i], want) {
					t.Errorf("notice %q, want one with %q", notices[i], want)
				}
			}
		})
	}
}

func TestCheckSuppliesTheFilesMetaAndKeepsNoRuns(t *testing.T) {
	dir := t.TempDir()
	in := inputs(t, nil)
	in.Script, in.RunsDir = write(t, "tidy-up.js", "return 1"), filepath.Join(dir, "runs")
	inv, err := setup.Load(in)
	if err != nil {
		t.Fatal(err)
	}
	res, supplied, err := setup.Check(context.Background(), inv, setup.Build{})
	if err != nil || !res.OK || !supplied || !strings.Contains(string(inv.Request.Meta), `"tidy-up"`) {
		t.Errorf("check %+v, supplied %v, meta %s, err %v", res, supplied, inv.Request.Meta, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "runs")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a check made the runs folder: %v", err)
	}
}

func TestFailedCheck(t *testing.T) {
	for _, c := range []struct {
		err  error
		code wferr.Code
	}{
		{wferr.At(wferr.ScriptParse, 3, 4, "bad"), wferr.ScriptParse},
		{errors.New("plain"), wferr.Internal},
		{&setup.InputError{Msg: "unreadable"}, wferr.Internal},
	} {
		res := setup.FailedCheck(c.err)
		if res.OK || res.ErrorCode != c.code || res.Error == "" {
			t.Errorf("FailedCheck(%v) = %+v, want code %s", c.err, res, c.code)
		}
	}
	if res := setup.FailedCheck(wferr.At(wferr.ScriptParse, 3, 4, "bad")); res.ErrorLine != 3 || res.ErrorColumn != 4 {
		t.Errorf("the position is lost: %+v", res)
	}
}

func TestOpenEventLog(t *testing.T) {
	var stderr strings.Builder
	for _, c := range []struct {
		path    string
		log     bool
		problem string
	}{
		{"", false, ""},
		{"-", true, ""},
		{filepath.Join(t.TempDir(), "events.jsonl"), true, ""},
		{filepath.Join(t.TempDir(), "no", "such", "folder", "events.jsonl"), false, "--events: cannot create"},
	} {
		log, closeLog, err := setup.OpenEventLog(c.path, &stderr)
		var ie *setup.InputError
		if (log != nil) != c.log || (c.problem == "") != (err == nil) || err != nil && (!errors.As(err, &ie) || !strings.Contains(ie.Msg, c.problem)) {
			t.Errorf("OpenEventLog(%q) = %v, %v", c.path, log, err)
		}
		if log != nil {
			log.Record(engine.Event{Type: "log"})
			if log.Err() != nil {
				t.Error(log.Err())
			}
		}
		closeLog()
	}
	if !strings.Contains(stderr.String(), `"type":"log"`) {
		t.Errorf("- wrote %q", stderr.String())
	}
}

func TestListProvidersHasTheBuiltInFake(t *testing.T) {
	def, list, err := setup.ListProviders(context.Background(), setup.Options{Getenv: func(string) string { return "" }})
	if err != nil || def != engine.DefaultProvider || len(list) == 0 || list[0].Name == "" {
		t.Fatalf("default %q, list %+v, err %v", def, list, err)
	}
}

func TestCloseWithinSaysWhatDidNotClose(t *testing.T) {
	err := setup.CloseWithin("the widgets", func(context.Context) error { return context.DeadlineExceeded })
	if err == nil || !strings.HasPrefix(err.Error(), "the widgets did not shut down within") || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("CloseWithin: %v", err)
	}
	if err := setup.CloseWithin("x", func(context.Context) error { return nil }); err != nil {
		t.Error(err)
	}
}
