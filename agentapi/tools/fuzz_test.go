package tools

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/wfrun/wfrun/agentapi/workspace"
)

// FuzzCall sends arbitrary argument bytes to every file tool: a call never
// panics or blocks (the workspace holds a named pipe), nothing outside the
// workspace is ever changed or shown, and .git/config is never changed.
// (Bash is left out: it runs whatever it is given, confined by the kernel,
// which the Bash tests check.)
func FuzzCall(f *testing.F) {
	seeds := []string{
		`{"file_path":"a.txt"}`, `{"file_path":"../outside/secret"}`, `{"file_path":"link","content":"x"}`,
		`{"file_path":"a.txt","old_string":"a","new_string":"b","replace_all":true}`,
		`{"pattern":"**/*"}`, `{"pattern":"a","output_mode":"content","-C":3}`, `{"pattern":"(","path":"/"}`,
		`{"todos":[{"content":"x","status":"pending"}]}`, `[]`, `null`, `{"offset":-1}`, `{"file_path":"\u0000"}`,
		`{"file_path":"pipe","content":"x"}`, `{"pattern":"x","path":"pipe"}`, `{"file_path":".git/config","content":"x"}`,
		`{"file_path":"./.git/config","old_string":"core","new_string":"x"}`,
	}
	for _, s := range seeds {
		for _, tool := range []string{Read, Write, Edit, Glob, Grep, TodoWrite} {
			f.Add(tool, s)
		}
	}
	base := f.TempDir()
	root, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{root, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("top secret\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	if err := os.Symlink("../outside/secret", filepath.Join(root, "link")); err != nil {
		f.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o644); err != nil {
		f.Fatal(err)
	}
	gitConfig := filepath.Join(root, ".git", "config")
	if err := os.Mkdir(filepath.Dir(gitConfig), 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(gitConfig, []byte("[core]\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	ws, err := workspace.New(workspace.Config{Root: root})
	if err != nil {
		f.Fatal(err)
	}
	set, err := New(ws, Options{})
	if err != nil {
		f.Fatal(err)
	}
	defer set.Close()
	f.Fuzz(func(t *testing.T, tool, args string) {
		out, err := set.Call(context.Background(), tool, []byte(args))
		if strings.Contains(out, "top secret") || (err != nil && strings.Contains(err.Error(), "top secret")) {
			t.Fatalf("%s %s showed a file outside the workspace", tool, args)
		}
		entries, _ := os.ReadDir(outside)
		b, _ := os.ReadFile(filepath.Join(outside, "secret"))
		if len(entries) != 1 || string(b) != "top secret\n" {
			t.Fatalf("%s %s changed the folder outside the workspace", tool, args)
		}
		if b, _ := os.ReadFile(gitConfig); string(b) != "[core]\n" {
			t.Fatalf("%s %s changed .git/config", tool, args)
		}
	})
}
