package fake

import (
	"strconv"
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
	if n := p.minimals.n.Load(); n != 2 {
		t.Errorf("worked out %d minimal values for 2 distinct schemas", n)
	}
}

func TestAnswersCacheStaysBounded(t *testing.T) {
	p := New(Options{})
	for i := range maxAnswers + 10 {
		text := `{"type":"object","properties":{"n":{"const":` + strconv.Itoa(i) + `}},"required":["n"]}`
		res, err := p.Run(t.Context(), schemaRequest("x", text))
		if err != nil || string(res.Output) != `{"n":`+strconv.Itoa(i)+`}` {
			t.Fatalf("schema %d: Run = %+v (output %s), %v", i, res, res.Output, err)
		}
	}
	if n := p.minimals.n.Load(); n > maxAnswers {
		t.Errorf("the cache holds %d minimal values, over its bound of %d", n, maxAnswers)
	}
	kept := 0
	p.minimals.m.Range(func(_, _ any) bool { kept++; return true })
	if kept > maxAnswers {
		t.Errorf("the cache's map holds %d entries, over its bound of %d", kept, maxAnswers)
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
