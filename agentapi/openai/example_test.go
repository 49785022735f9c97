package openai_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/openai"
)

func ExampleNew() {
	// A stand-in for an OpenAI-compatible server such as vLLM or Ollama.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"choices":[{"index":0,"finish_reason":"stop",
			"message":{"role":"assistant","content":"Bonjour !"}}],
			"usage":{"prompt_tokens":120,"completion_tokens":4}}`)
	}))
	defer srv.Close()

	p, err := openai.New(openai.Config{
		BaseURL: srv.URL + "/v1", // or ConfigFromEnv(os.Getenv)
		Model:   "gpt-4o-mini",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := p.Run(context.Background(), agentapi.Request{AgentID: "ag_1", Prompt: "Say hello in French."})
	if err != nil {
		fmt.Println(err) // misconfigured, e.g. a 401: the run fails with AGENT_START
		return
	}
	fmt.Println(res.Status, res.Text)
	fmt.Printf("%d in, %d out, $%.6f\n", res.Usage.InputTokens, res.Usage.OutputTokens, res.Usage.CostUSD)
	// Output:
	// completed Bonjour !
	// 120 in, 4 out, $0.000020
}
