package fake_test

import (
	"context"
	"fmt"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/fake"
)

func ExampleNew() {
	rules, err := fake.Parse([]byte(`{"rules": [
		{"match": "^Audit api/admin.go", "fail": "context window exceeded"},
		{"match": "refute this finding", "reply": {"real": true, "why": "user input reaches fmt.Sprintf"}}
	]}`))
	if err != nil {
		panic(err)
	}
	p := fake.New(fake.Options{Rules: rules})
	ctx := context.Background()

	verdict := `{"type":"object","properties":{"real":{"type":"boolean"},"why":{"type":"string"}},"required":["real"]}`
	res, _ := p.Run(ctx, agentapi.Request{Prompt: "Try to refute this finding: SQL built from strings.", Schema: []byte(verdict)})
	fmt.Println(res.Status, string(res.Output))

	res, _ = p.Run(ctx, agentapi.Request{Prompt: "Audit api/admin.go for injection bugs."})
	fmt.Println(res.Status, res.Failure, res.Error)

	res, _ = p.Run(ctx, agentapi.Request{Prompt: "No rule matches this.", Schema: []byte(verdict)})
	fmt.Println(res.Status, string(res.Output), res.Usage.InputTokens, res.Usage.OutputTokens)

	res, _ = p.Run(ctx, agentapi.Request{Prompt: "Echo me."})
	fmt.Println(res.Status, res.Text)
	// Output:
	// completed {"real":true,"why":"user input reaches fmt.Sprintf"}
	// failed task_failed context window exceeded
	// completed {"real":false} 6 4
	// completed Echo me.
}
