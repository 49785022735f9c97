package modelmap_test

import (
	"fmt"

	"github.com/wfrun/wfrun/agentapi/modelmap"
)

func ExampleMap_Resolve() {
	m, err := modelmap.ParseFlag("haiku=gpt-4o-mini,sonnet=gpt-4.1")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, asked := range []string{"haiku", "inherit", "o3", "opus"} {
		r := m.Resolve(asked, "gpt-4o", modelmap.IsAnthropic("https://api.openai.com/v1"))
		fmt.Printf("%-7s → %s (%d tokens)\n", asked, r.Model, r.ContextWindow)
		if r.Note != "" {
			fmt.Println("  note:", r.Note)
		}
	}
	// Output:
	// haiku   → gpt-4o-mini (128000 tokens)
	// inherit → gpt-4o (128000 tokens)
	// o3      → o3 (200000 tokens)
	// opus    → gpt-4o (128000 tokens)
	//   note: the model alias opus is not mapped to a model of this endpoint, so the run's model gpt-4o was used; map it with --model-map opus=MODEL
}
