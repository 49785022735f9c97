package engine_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/tools"
	"github.com/wfrun/wfrun/agentapi/workspace"
	"github.com/wfrun/wfrun/engine"
)

// pipeChild is a provider whose child calls the built-in tools on a named
// pipe in its workspace, reports what they said, and then waits for its
// run to end, as a child waits on its model.
type pipeChild struct {
	ws   *workspace.Workspace
	said chan []string
}

func (*pipeChild) Name() string                        { return "pipe-child" }
func (*pipeChild) Capabilities() agentapi.Capabilities { return agentapi.All() }
func (p *pipeChild) Run(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
	set, err := tools.New(p.ws, tools.Options{})
	if err != nil {
		return agentapi.Result{}, err
	}
	defer set.Close()
	var said []string
	for _, c := range []struct{ tool, args string }{
		{tools.Read, `{"file_path":"pipe"}`},
		{tools.Write, `{"file_path":"pipe","content":"x"}`},
		{tools.Edit, `{"file_path":"pipe","old_string":"a","new_string":"b"}`},
		{tools.Grep, `{"pattern":"x","path":"pipe"}`},
		{tools.Grep, `{"pattern":"x"}`},
		{tools.Glob, `{"pattern":"**"}`},
	} {
		out, err := set.Call(ctx, c.tool, json.RawMessage(c.args))
		if err != nil {
			out = err.Error()
		}
		said = append(said, c.tool+": "+out)
	}
	p.said <- said
	<-ctx.Done()
	return agentapi.Result{Status: agentapi.StatusCompleted, Text: "stopped"}, nil
}

// TestEngine_AChildsToolsOnANamedPipeDoNotHoldUpClose: a named pipe in the
// workspace used to block Read and Write in open(2), so that the child
// never ended and Close waited for it until its own deadline. The tools
// now refuse the pipe at once, and Close ends the waiting child promptly.
func TestEngine_AChildsToolsOnANamedPipeDoNotHoldUpClose(t *testing.T) {
	const failAfter = 30 * time.Second // only to fail instead of hanging
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o644); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	ws, err := workspace.New(workspace.Config{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	child := &pipeChild{ws: ws, said: make(chan []string, 1)}
	eng, err := engine.New(engine.Config{Providers: []agentapi.Provider{child}, DefaultProvider: child.Name()})
	if err != nil {
		t.Fatal(err)
	}
	run, err := eng.Start(context.Background(), engine.WorkflowStartRequest{Parent: "p",
		Script: "export const meta = {name:'pipe', description:'d'}\nreturn await agent('use the pipe')"})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case said := <-child.said:
		for _, s := range said[:4] {
			if !strings.Contains(s, "is a named pipe (FIFO), not a regular file") {
				t.Errorf("the tool did not refuse the pipe: %s", s)
			}
		}
		for _, s := range said[4:] {
			if strings.Contains(s, "pipe") {
				t.Errorf("a walk went near the pipe: %s", s)
			}
		}
	case <-time.After(failAfter):
		t.Fatalf("the child's tools are still blocked on the named pipe after %s", failAfter)
	}
	ctx, cancel := context.WithTimeout(context.Background(), failAfter)
	defer cancel()
	if err := eng.Close(ctx); err != nil {
		t.Fatalf("the engine did not shut down: %v", err)
	}
	if res := run.Wait(); res.StopReason == engine.StopCompleted {
		t.Fatalf("a run cut short by Close completed: %+v", res)
	}
}
