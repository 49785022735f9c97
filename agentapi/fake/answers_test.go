package fake

import (
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
