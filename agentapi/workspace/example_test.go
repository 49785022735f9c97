package workspace_test

import (
	"errors"
	"fmt"
	"os"

	"github.com/wfrun/wfrun/agentapi/workspace"
)

// A program that runs sandboxed commands calls Init first thing in main.
// Started as the sandbox helper, Init never returns; otherwise it returns
// at once.
func ExampleInit() {
	workspace.Init()
	// … the program's own main follows.
}

func ExampleWorkspace_Resolve() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	_ = os.Symlink("/etc", dir+"/etc-link")

	w, err := workspace.New(workspace.Config{Root: dir, Mode: workspace.ReadOnly})
	if err != nil {
		fmt.Println(err)
		return
	}
	p, err := w.Resolve("notes/todo.md")
	fmt.Println(w.Rel(p), err)
	_, err = w.Resolve("etc-link/passwd")
	fmt.Println(errors.Is(err, workspace.ErrOutside))
	// Output:
	// notes/todo.md <nil>
	// true
}

func ExampleMode_Narrow() {
	run := workspace.WorkspaceWrite
	fmt.Println(run.Narrow(workspace.ReadOnly), run.Narrow(workspace.DangerFullAccess))
	// Output: read-only workspace-write
}
