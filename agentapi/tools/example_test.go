package tools_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/wfrun/wfrun/agentapi/tools"
	"github.com/wfrun/wfrun/agentapi/workspace"
)

// A provider builds one Set per child, shows its Tools to the model and
// routes the model's tool calls to Call.
func ExampleNew() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	_ = os.WriteFile(filepath.Join(dir, "notes.md"), []byte("# Notes\nship it\n"), 0o644)

	ws, err := workspace.New(workspace.Config{Root: dir, Mode: workspace.ReadOnly})
	if err != nil {
		fmt.Println(err)
		return
	}
	set, err := tools.New(ws, tools.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer set.Close()

	list, _ := set.Tools(context.Background())
	var names []string
	for _, t := range list {
		names = append(names, t.Name)
	}
	fmt.Println(strings.Join(names, " "))
	out, _ := set.Call(context.Background(), tools.Read, []byte(`{"file_path":"notes.md"}`))
	fmt.Println(out)
	_, err = set.Call(context.Background(), tools.Read, []byte(`{"file_path":"/etc/passwd"}`))
	fmt.Println(strings.Contains(err.Error(), "outside the workspace"))
	// Output:
	// Read Glob Grep Bash TodoWrite
	//      1	# Notes
	//      2	ship it
	// true
}
