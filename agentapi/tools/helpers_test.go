package tools

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/agentapi/workspace"
)

// fixture is a workspace in a temp folder, beside a folder it must not
// reach, with files and a tool set.
type fixture struct {
	t       *testing.T
	set     *Set
	root    string
	outside string
}

// newFixture writes files (path → content; a content starting with "->"
// makes a symlink to the rest) into a fresh workspace and opens a Set.
func newFixture(t *testing.T, mode workspace.Mode, files map[string]string) *fixture {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, root: filepath.Join(base, "ws"), outside: filepath.Join(base, "outside")}
	for _, d := range []string{f.root, f.outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(f.outside, "secret"), []byte("top secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.files(files)
	f.open(mode)
	return f
}

func (f *fixture) files(files map[string]string) {
	f.t.Helper()
	for name, content := range files {
		p := filepath.Join(f.root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			f.t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(content, "->"); ok {
			if err := os.Symlink(target, p); err != nil {
				f.t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			f.t.Fatal(err)
		}
	}
}

func (f *fixture) open(mode workspace.Mode) {
	f.t.Helper()
	ws, err := workspace.New(workspace.Config{Root: f.root, Mode: mode})
	if err != nil {
		f.t.Fatal(err)
	}
	if f.set, err = New(ws, Options{}); err != nil {
		f.t.Fatal(err)
	}
	set := f.set
	f.t.Cleanup(func() { set.Close() })
}

// call runs a tool with args given as a Go value.
func (f *fixture) call(name string, args any) (string, error) {
	f.t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		f.t.Fatal(err)
	}
	return f.set.Call(context.Background(), name, b)
}

// ok runs a tool that must succeed.
func (f *fixture) ok(name string, args any) string {
	f.t.Helper()
	out, err := f.call(name, args)
	if err != nil {
		f.t.Fatalf("%s %v: %v", name, args, err)
	}
	return out
}

// fails runs a tool that must fail with an error containing every word.
func (f *fixture) fails(name string, args any, words ...string) string {
	f.t.Helper()
	out, err := f.call(name, args)
	if err == nil {
		f.t.Fatalf("%s %v succeeded with %q, want an error", name, args, out)
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			f.t.Fatalf("%s %v: the error %q does not say %q", name, args, err, w)
		}
	}
	return err.Error()
}

func (f *fixture) read(name string) string {
	f.t.Helper()
	b, err := os.ReadFile(filepath.Join(f.root, name))
	if err != nil {
		f.t.Fatal(err)
	}
	return string(b)
}

// gitInit makes the workspace a git repository.
func (f *fixture) gitInit() {
	f.t.Helper()
	out, err := exec.Command("git", "-C", f.root, "init", "--quiet").CombinedOutput()
	if err != nil {
		f.t.Fatalf("git init: %v\n%s", err, out)
	}
}

type obj = map[string]any
