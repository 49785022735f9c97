package subagent_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/subagent"
)

// A parent starts a child, sends it a follow-up while its first turn may
// still run, and collects both answers in order. The fake provider echoes
// each message.
func ExampleManager() {
	dir, _ := os.MkdirTemp("", "subagents")
	defer os.RemoveAll(dir)
	eng, _ := engine.New(engine.Config{RunsDir: dir + "/runs"})
	m, _ := subagent.New(eng, subagent.Options{})
	ctx := context.Background()
	defer eng.Close(ctx) // after the manager: the children live in the engine's ledger
	defer m.Close(ctx)

	me := subagent.Caller{Owner: "me"}
	child, _ := m.Start(ctx, me, subagent.StartRequest{Prompt: "research A"})
	turn, _ := m.Send(ctx, me, child.ChildID, "also check arxiv")
	first, _ := m.Result(ctx, me, child.ChildID, 1, time.Minute)
	second, _ := m.Result(ctx, me, child.ChildID, turn, time.Minute)
	fmt.Println(first.Turn, first.Status, first.Text)
	fmt.Println(second.Turn, second.Status, second.Text)
	// Output:
	// 1 completed research A
	// 2 completed also check arxiv
}
