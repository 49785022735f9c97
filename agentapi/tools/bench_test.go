package tools

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"testing"

	"github.com/wfrun/wfrun/agentapi/workspace"
)

// BenchmarkBash measures one `true` through the Bash tool per mode: the
// difference between danger-full-access and the others is the sandbox
// helper's cost (a re-exec of this binary and the Landlock ruleset).
func BenchmarkBash(b *testing.B) {
	for _, mode := range workspace.Modes() {
		b.Run(string(mode), func(b *testing.B) {
			ws, err := workspace.New(workspace.Config{Root: b.TempDir(), Mode: mode})
			if err != nil {
				b.Fatal(err)
			}
			set, err := New(ws, Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer set.Close()
			args := json.RawMessage(`{"command":"true"}`)
			for b.Loop() {
				if _, err := set.Call(context.Background(), Bash, args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGrep measures a files_with_matches search over a tree of 2,000
// small files with a .gitignore.
func BenchmarkGrep(b *testing.B) {
	root := b.TempDir()
	if err := os.WriteFile(root+"/.gitignore", []byte("*.log\nvendor/\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	for i := range 2000 {
		dir := root + "/pkg" + string(rune('a'+i%20))
		_ = os.MkdirAll(dir, 0o755)
		if err := os.WriteFile(dir+"/f"+strconv.Itoa(i)+".go", []byte("package x\n\nfunc F() { /* TODO */ }\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	ws, _ := workspace.New(workspace.Config{Root: root, Mode: workspace.ReadOnly})
	set, _ := New(ws, Options{})
	defer set.Close()
	args := json.RawMessage(`{"pattern":"TODO","output_mode":"count","head_limit":1}`)
	for b.Loop() {
		if _, err := set.Call(context.Background(), Grep, args); err != nil {
			b.Fatal(err)
		}
	}
}
