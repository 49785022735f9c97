package setup_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/setup"
)

// An embedder builds the providers a person at the shell would get, and
// an engine on them. Here the environment configures nothing, so the
// default is the offline fake and the notice says how to change that.
func ExampleProviders() {
	set, err := setup.Providers(context.Background(), setup.Options{
		Getenv: func(string) string { return "" }, // os.Getenv when nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer set.Close()
	var cfg engine.Config
	set.Apply(&cfg)
	eng, err := engine.New(cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer eng.Close(context.Background())
	fmt.Println("default:", set.Default)
	fmt.Println(set.Notice)
	// Output:
	// default: fake
	// no provider configured; using the offline fake provider (set OPENAI_API_KEY or pass --provider)
}

// An embedder reads a run's inputs the way wfrun SCRIPT.js reads its
// flags, builds the same engine, and runs the script: the same request,
// the same default provider, the same errors.
func ExampleLoad() {
	dir, err := os.MkdirTemp("", "setup-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "greet.js")
	if err := os.WriteFile(script, []byte(`return "hello, " + args.name`), 0o600); err != nil {
		fmt.Println(err)
		return
	}
	environ := map[string]string{"HOME": dir, "WFRUN_STATE_DIR": filepath.Join(dir, "state")}
	inv, err := setup.Load(setup.Inputs{
		Script: script, Args: `{"name":"world"}`, DefaultParent: "embedder",
		Workspace: dir, RunsDir: filepath.Join(dir, "runs"),
		Providers: setup.Options{Getenv: func(k string) string { return environ[k] }},
	})
	if err != nil {
		fmt.Println(err) // an *InputError or a *wferr.Error
		return
	}
	eng, err := setup.Open(context.Background(), inv, setup.Build{
		Announce: true, WithTools: true, Notify: func(s string) { fmt.Println("notice:", s) },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer eng.Close()
	if setup.SupplyMeta(eng.Engine, &inv.Request) { // the script has no meta: name it after its file
		fmt.Printf("meta: %s\n", inv.Request.Meta)
	}
	run, err := eng.Start(context.Background(), inv.Request)
	if err != nil {
		fmt.Println(err)
		return
	}
	res := run.Wait()
	fmt.Println(res.StopReason, string(res.Value))
	// Output:
	// notice: no provider configured; using the offline fake provider (set OPENAI_API_KEY or pass --provider)
	// meta: {"name":"greet","description":"greet.js run from the command line"}
	// completed "hello, world"
}
