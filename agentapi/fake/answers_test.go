package fake

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/wfrun/wfrun/agentapi"
)

func TestSchemaCallsWorkOutEachDistinctSchemaOnce(t *testing.T) {
	p := New(Options{})
	other := `{"type":"object","properties":{"n":{"type":"integer","minimum":3}},"required":["n"]}`
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			text, want := verdictSchema, `{"real":false}`
			if i%2 == 1 {
				text, want = other, `{"n":3}`
			}
			for range 20 {
				res, err := p.Run(t.Context(), schemaRequest("judge", text))
				if err != nil || res.Status != agentapi.StatusCompleted || string(res.Output) != want {
					t.Errorf("Run = %+v (output %s), %v; want output %s", res, res.Output, err, want)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := p.schemas.m.Len(); n != 2 {
		t.Errorf("the provider keeps %d schemas for 2 distinct schema texts", n)
	}
}

func TestUnsatisfiableSchemaFailsTheSameWayEveryCall(t *testing.T) {
	p := New(Options{})
	text := `{"type":"object","properties":{"a":{"not":{}}},"required":["a"]}`
	first, _ := p.Run(t.Context(), schemaRequest("x", text))
	again, _ := p.Run(t.Context(), schemaRequest("x", text))
	if first.Failure != agentapi.FailureInvalidOutput || !sameResult(first, again) {
		t.Errorf("first call %+v, second call %+v; want the same invalid_output failure", first, again)
	}
}

func TestASchemasFirstAcceptedExampleIsTheAnswer(t *testing.T) {
	p := New(Options{})
	for _, tc := range []struct {
		name, schema, want string
	}{
		{"the first example", `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"examples":[{"n":7},{"n":8}]}`, `{"n":7}`},
		{"an example the schema refuses is skipped", `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"examples":[{"n":"seven"},{"n":8}]}`, `{"n":8}`},
		{"no example: the smallest value", `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`, `{"n":0}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := p.Run(context.Background(), agentapi.Request{AgentID: "ag_1", Prompt: "x", Schema: json.RawMessage(tc.schema)})
			if err != nil || string(res.Output) != tc.want {
				t.Fatalf("output %s (%v), want %s", res.Output, err, tc.want)
			}
		})
	}
}
