package parent_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	"github.com/wfrun/wfrun/agentapi/openai"
	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/tool/parent"
)

// An embedder runs wfrun's parent agent on its own engine: the model
// (here a stand-in on loopback that answers at once) may write workflows
// for the engine's sub-agents before it answers.
func Example() {
	srv := httptest.NewServer(&model{answers: []map[string]any{say("Use a formatter.")}})
	defer srv.Close()
	eng, err := engine.New(engine.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer eng.Close(context.Background())

	p, err := parent.New(eng, parent.Config{Model: openai.Config{BaseURL: srv.URL + "/v1", APIKey: "key", Model: "gpt-4o-mini"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close(context.Background(), "the example is over")
	res, err := p.Run(context.Background(), "Settle tabs versus spaces")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Text)
	// Output: Use a formatter.
}
