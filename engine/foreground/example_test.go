package foreground_test

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/foreground"
	"github.com/wfrun/wfrun/engine/setup"
)

// A program that runs a workflow script for a person at its own terminal,
// as `wfrun SCRIPT.js` does: the progress line when stderr is a
// terminal, Ctrl-C cancelling the run, a second Ctrl-C giving up.
func Example() {
	dir, _ := os.MkdirTemp("", "foreground-example")
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "hello.js")
	_ = os.WriteFile(script, []byte(`export const meta = {name: 'hello', description: 'greets'}
return await agent('Say hello')`), 0o600)

	// The fake provider answers offline; a real program would leave
	// Getenv nil and take its providers from the environment.
	env := map[string]string{"HOME": dir, "WFRUN_STATE_DIR": filepath.Join(dir, "state")}
	in, err := setup.Load(setup.Inputs{Script: script, DefaultParent: "example", Workspace: dir,
		RunsDir:   filepath.Join(dir, "runs"),
		Providers: setup.Options{Getenv: func(k string) string { return env[k] }}})
	if err != nil {
		fmt.Println(err)
		return
	}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)

	term := foreground.Terminal{Stderr: os.Stderr, Signals: sigs, Notify: func(s string) { fmt.Fprintln(os.Stderr, s) }}
	s, err := foreground.Open(context.Background(), in, term, foreground.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	f := s.Follow(func(onEvent func(engine.Event)) (*engine.Run, error) {
		in.Request.OnEvent = onEvent
		return s.Engine.Start(context.Background(), in.Request)
	})
	s.Close()
	fmt.Println(f.Result.StopReason, f.Result.AgentsSpawned)
	// Output: completed 1
}
