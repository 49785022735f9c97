package setup_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/setup"
	"github.com/wfrun/wfrun/internal/wferr"
)

// inputs are Inputs whose environment is only environ, in a home and a
// workspace of the test's own.
func inputs(t *testing.T, environ map[string]string) setup.Inputs {
	t.Helper()
	home := t.TempDir()
	env := map[string]string{"HOME": home, "WFRUN_STATE_DIR": filepath.Join(home, "state")}
	for k, v := range environ {
		env[k] = v
	}
	return setup.Inputs{Workspace: t.TempDir(), DefaultParent: "cli",
		Providers: setup.Options{Getenv: func(k string) string { return env[k] }}}
}

func write(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoad(t *testing.T) {
	script := write(t, "hello.js", "return 1")
	for _, c := range []struct {
		name  string
		set   func(in *setup.Inputs)
		check func(t *testing.T, inv *setup.Invocation)
		code  wferr.Code // the *wferr.Error's code wanted
		input string     // a sentence of the *InputError wanted
	}{
		{name: "a script file and inline args", set: func(in *setup.Inputs) { in.Script, in.Args = script, ` {"topic":"x"} ` },
			check: func(t *testing.T, inv *setup.Invocation) {
				r := inv.Request
				if r.Script != "return 1" || r.ScriptName != "hello.js" || string(r.Args) != `{"topic":"x"}` || r.Parent != "cli" || inv.ScriptFile != script || inv.ExplicitProvider {
					t.Errorf("%+v", inv)
				}
			}},
		{name: "the script from stdin", set: func(in *setup.Inputs) { in.Script, in.Stdin = "-", strings.NewReader("return 2") },
			check: func(t *testing.T, inv *setup.Invocation) {
				if inv.Request.Script != "return 2" || inv.Request.ScriptName != "stdin.js" {
					t.Errorf("%+v", inv.Request)
				}
			}},
		{name: "the fields override the request file", set: func(in *setup.Inputs) {
			in.Request = write(t, "req.json", `{"script":"return 3","parent":"p","model":"m","concurrency":2}`)
			in.Fields = engine.WorkflowStartRequest{Model: "n", Concurrency: 5, SubagentProvider: "openai", TimeoutMs: 9}
		}, check: func(t *testing.T, inv *setup.Invocation) {
			r := inv.Request
			if r.ScriptName != "request.js" || r.Parent != "p" || r.Model != "n" || r.Concurrency != 5 || r.TimeoutMs != 9 || !inv.ExplicitProvider {
				t.Errorf("%+v", r)
			}
		}},
		{name: "fake rules ask for the fake provider", set: func(in *setup.Inputs) {
			in.Script, in.FakeRules = script, write(t, "rules.json", `{"rules":[{"match":"x","reply":"y"}]}`)
		}, check: func(t *testing.T, inv *setup.Invocation) {
			if inv.Request.SubagentProvider != engine.DefaultProvider || !inv.ExplicitProvider || inv.FakeRules == nil {
				t.Errorf("%+v", inv)
			}
		}},
		{name: "a saved workflow by name", set: func(in *setup.Inputs) {
			dir := filepath.Dir(write(t, "saved-one.js", "export const meta = {name: 'saved-one', description: 'd'}\nreturn 4"))
			in.Script, in.WorkflowsDirs = "saved-one", []string{dir}
		}, check: func(t *testing.T, inv *setup.Invocation) {
			if !strings.HasSuffix(inv.Request.ScriptName, "saved-one.js") || !strings.Contains(inv.Request.Script, "return 4") {
				t.Errorf("%+v", inv.Request)
			}
		}},
		{name: "the runs folder of the environment", set: func(in *setup.Inputs) {
			in.Script = script
			in.Providers.Getenv = func(k string) string { return map[string]string{"WFRUN_RUNS_DIR": "/r"}[k] }
		}, check: func(t *testing.T, inv *setup.Invocation) {
			if inv.RunsDir != "/r" {
				t.Errorf("runs folder %q", inv.RunsDir)
			}
		}},
		{name: "unknown request field", set: func(in *setup.Inputs) { in.Request = write(t, "r.json", `{"script":"x","nope":1}`) }, code: wferr.InvalidRequest},
		{name: "text after the request", set: func(in *setup.Inputs) { in.Request = write(t, "r.json", `{"script":"x"} {}`) }, code: wferr.InvalidRequest},
		{name: "args that are not JSON", set: func(in *setup.Inputs) { in.Script, in.Args = script, "{topic" }, code: wferr.InvalidRequest},
		{name: "meta that is not JSON", set: func(in *setup.Inputs) { in.Script, in.Meta = script, "@"+write(t, "m.json", "{") }, code: wferr.MetaInvalid},
		{name: "bad fake rules", set: func(in *setup.Inputs) { in.Script, in.FakeRules = script, write(t, "f.json", `{"rules":3}`) }, code: wferr.InvalidRequest},
		{name: "no script", set: func(in *setup.Inputs) {}, input: "no script given"},
		{name: "a missing script", set: func(in *setup.Inputs) {
			in.Script, in.Hint = filepath.Join(t.TempDir(), "nothing"), func(string) string { return " (a hint)" }
		}, input: "no such file or directory (a hint)"},
		{name: "two inputs on stdin", set: func(in *setup.Inputs) { in.Script, in.Args, in.Stdin = "-", "@-", strings.NewReader("1") },
			input: "the script and --args @- both read stdin"},
		{name: "no stdin", set: func(in *setup.Inputs) { in.Script = "-" }, input: "stdin is not available"},
		{name: "a workflows folder that is a file", set: func(in *setup.Inputs) { in.Script, in.WorkflowsDirs = script, []string{script} }, input: "is a file"},
		{name: "a bad sandbox", set: func(in *setup.Inputs) { in.Script, in.Sandbox = script, "loose" }, input: "--sandbox"},
		{name: "a bad model map", set: func(in *setup.Inputs) { in.Script, in.ModelMap = script, "nonsense" }, input: "--model-map"},
		{name: "a workspace that is no folder", set: func(in *setup.Inputs) { in.Script, in.Workspace = script, script }, input: "is not a folder"},
		{name: "an unknown saved workflow", set: func(in *setup.Inputs) { in.Script = "no-such-workflow" }, input: "neither a file nor a saved workflow"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := inputs(t, nil)
			c.set(&in)
			inv, err := setup.Load(in)
			var ie *setup.InputError
			switch {
			case c.code != "":
				if we, ok := wferr.As(err); !ok || we.Code != c.code {
					t.Errorf("error %v, want code %s", err, c.code)
				}
			case c.input != "":
				if !errors.As(err, &ie) || !strings.Contains(ie.Msg, c.input) {
					t.Errorf("error %v, want an InputError saying %q", err, c.input)
				}
			case err != nil:
				t.Fatal(err)
			default:
				c.check(t, inv)
			}
		})
	}
}

func TestLoadServerMakesTheLimitsTheEngineDefaults(t *testing.T) {
	in := inputs(t, nil)
	in.Fields = engine.WorkflowStartRequest{SubagentProvider: "fake", Concurrency: 3, BudgetTokens: 100, TimeoutMs: 2000, Isolate: engine.IsolateProcess}
	inv, err := setup.LoadServer(in)
	if err != nil {
		t.Fatal(err)
	}
	var cfg engine.Config
	inv.EngineConfig(&cfg)
	if cfg.DefaultProvider != "fake" || cfg.Concurrency != 3 || cfg.BudgetTokens != 100 || cfg.RunTimeout != 2*time.Second || cfg.Isolate != engine.IsolateProcess {
		t.Errorf("config %+v", cfg)
	}
}

func TestLoadResumeRefusesWhatIsNoRunID(t *testing.T) {
	for _, id := range []string{"", "wf_x", "../etc"} {
		var ie *setup.InputError
		if _, err := setup.LoadResume(inputs(t, nil), id); !errors.As(err, &ie) || !strings.Contains(ie.Msg, "is not a run id") {
			t.Errorf("LoadResume(%q): %v", id, err)
		}
	}
}

func TestRequestFieldsNameTheJSONFields(t *testing.T) {
	fields := strings.Join(setup.RequestFields(), ",")
	for _, want := range []string{"script", "args", "meta", "subagentProvider"} {
		if !strings.Contains(","+fields+",", ","+want+",") {
			t.Errorf("RequestFields() = %s, missing %s", fields, want)
		}
	}
}
