package engine

import (
	"context"
	"testing"
	"time"
)

func TestRegistry_FinishedRunsAreDroppedPastTheirTTLAndPastTheCount(t *testing.T) {
	eng, err := New(Config{FinishedRunsKept: 2, FinishedRunTTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(context.Background())
	now := time.Now()
	eng.registry.now = func() time.Time { return now }

	var ids []string
	for range 3 {
		res := eng.Run(context.Background(), WorkflowStartRequest{Parent: "p",
			Script: "export const meta = { name: 'n', description: 'd' }\nreturn 1"})
		if res.StopReason != StopCompleted {
			t.Fatalf("%+v", res)
		}
		ids = append(ids, res.RunID)
		time.Sleep(2 * time.Millisecond) // distinct end times
	}
	if got := eng.Runs("p"); len(got) != 2 {
		t.Fatalf("kept %d finished runs, want 2: %+v", len(got), got)
	}
	if _, ok := eng.Lookup("p", ids[0]); ok {
		t.Fatal("the oldest finished run was kept past the count")
	}
	if _, ok := eng.Lookup("p", ids[2]); !ok {
		t.Fatal("the newest finished run was dropped")
	}
	now = now.Add(2 * time.Minute)
	if got := eng.Runs("p"); len(got) != 0 {
		t.Fatalf("finished runs kept past the TTL: %+v", got)
	}
}
