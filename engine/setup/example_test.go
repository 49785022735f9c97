package setup_test

import (
	"context"
	"fmt"

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
