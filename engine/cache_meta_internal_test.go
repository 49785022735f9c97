package engine

import (
	"context"
	"testing"
)

func TestCompiledMeta_EachRunGetsItsOwnCopyOfTheCachedMeta(t *testing.T) {
	eng, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(context.Background())
	req := WorkflowStartRequest{Parent: "p", Script: `export const meta = { name: 'n', description: 'd', phases: [{ title: 'One' }], extra: 1 }
return 1`}
	first, err := eng.Start(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	first.Wait()
	first.meta.Phases[0].Title = "changed by the embedder"
	first.warnings[0] = "changed too"

	req.Model = "m"
	second, err := eng.Start(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	second.Wait()
	if m := second.Meta(); m.Phases[0].Title != "One" || m.Model != "m" {
		t.Errorf("the second run's meta is %+v", m)
	}
	if w := second.Warnings(); len(w) != 1 || w[0] == "changed too" {
		t.Errorf("the second run's warnings are %q", w)
	}
	if m := first.Meta(); m.Model != "" {
		t.Errorf("the request's model reached the first run's meta: %+v", m)
	}
}
