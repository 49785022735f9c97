package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree builds, in a temp folder, a workspace "ws" beside a folder "out"
// that it must not reach, with real symbolic links between them. It
// returns the workspace and the real path of the temp folder.
func tree(t testing.TB) (*Workspace, string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	for _, d := range []string{"ws/src/pkg", "ws/~", "out/secret"} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"ws/src/main.go", "ws/file.txt", "out/secret/key", "out/passwd"} {
		if err := os.WriteFile(filepath.Join(base, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"ws/link-out-file":  filepath.Join(base, "out/passwd"),
		"ws/link-out-dir":   "../out/secret",
		"ws/link-in":        "src/pkg",
		"ws/link-in-abs":    filepath.Join(ws, "src"),
		"ws/dangling-out":   filepath.Join(base, "out/not-yet"),
		"ws/dangling-in":    "src/not-yet",
		"ws/loop-a":         "loop-b",
		"ws/loop-b":         "loop-a",
		"ws/self":           "self",
		"ws/src/up":         "..",
		"ws/out-and-back":   "../ws/src",
		"ws/link-root":      "/",
		"ws/chain1":         "chain2",
		"ws/chain2":         "link-out-dir",
		"ws/src/pkg/uplink": "../../../out",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(base, name)); err != nil {
			t.Fatal(err)
		}
	}
	w, err := New(Config{Root: ws})
	if err != nil {
		t.Fatal(err)
	}
	return w, base
}

func TestResolveConfinesPathsToTheWorkspace(t *testing.T) {
	t.Parallel()
	w, base := tree(t)
	ws := w.Root()
	inside := []struct{ path, want string }{
		{".", ws},
		{"", ""}, // an error, below
		{"file.txt", ws + "/file.txt"},
		{"./src//main.go", ws + "/src/main.go"},
		{ws + "/src/main.go", ws + "/src/main.go"},
		{"new/dir/file.go", ws + "/new/dir/file.go"},
		{"src/../file.txt", ws + "/file.txt"},
		{"~/notes.md", ws + "/~/notes.md"},
		{"link-in/x.go", ws + "/src/pkg/x.go"},
		{"link-in-abs/main.go", ws + "/src/main.go"},
		{"dangling-in", ws + "/src/not-yet"},
		{"out-and-back/main.go", ws + "/src/main.go"},
		{"../ws/file.txt", ws + "/file.txt"},
		{"src/up/file.txt", ws + "/file.txt"},
		{"link-in/../main.go", ws + "/src/main.go"}, // ".." after a link is the link target's parent
		{"missing/../file.txt", ws + "/file.txt"},
	}
	for _, c := range inside {
		if c.path == "" {
			continue
		}
		got, err := w.Resolve(c.path)
		if err != nil || got != c.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q", c.path, got, err, c.want)
		}
	}
	outside := []string{
		"..",
		"../out/passwd",
		"/etc/passwd",
		base + "/out/secret/key",
		"link-out-file",
		"link-out-dir",
		"link-out-dir/key",
		"link-out-dir/new-file",
		"dangling-out",   // a Write here would create a file outside
		"chain1/key",     // two links, the second pointing out
		"link-root/etc",  // a link to /
		"src/pkg/uplink", // a relative link climbing out
		"src/../../out",
		"link-in/../../../out/passwd",
	}
	for _, p := range outside {
		got, err := w.Resolve(p)
		if !errors.Is(err, ErrOutside) {
			t.Errorf("Resolve(%q) = %q, %v; want an error wrapping ErrOutside", p, got, err)
			continue
		}
		if !strings.Contains(err.Error(), "outside the workspace "+ws) || !strings.Contains(err.Error(), p) {
			t.Errorf("Resolve(%q): the error %q does not name the path and the workspace", p, err)
		}
	}
}

func TestResolveRefusesLoopsAndBadPaths(t *testing.T) {
	t.Parallel()
	w, _ := tree(t)
	cases := map[string]string{
		"loop-a":        "symbolic links",
		"self/x":        "symbolic links",
		"":              "empty",
		"a\x00b":        "NUL",
		"file.txt/more": "not a folder",
	}
	for p, want := range cases {
		_, err := w.Resolve(p)
		if err == nil || !strings.Contains(err.Error(), want) || errors.Is(err, ErrOutside) {
			t.Errorf("Resolve(%q) = %v; want an error about %q", p, err, want)
		}
	}
}

func TestTheOutsideErrorSaysWhereTheLinkLeads(t *testing.T) {
	t.Parallel()
	w, base := tree(t)
	_, err := w.Resolve("link-out-file")
	if err == nil || !strings.Contains(err.Error(), "resolves to "+base+"/out/passwd") {
		t.Fatalf("got %v, want it to say where the link leads", err)
	}
	_, err = w.Resolve("/etc/passwd")
	if err == nil || strings.Contains(err.Error(), "resolves to") {
		t.Fatalf("got %v, want no 'resolves to' for a plain path", err)
	}
}

func TestNewResolvesTheRootAndRefusesWhatIsNotAFolder(t *testing.T) {
	t.Parallel()
	w, base := tree(t)
	link := filepath.Join(base, "ws-link")
	if err := os.Symlink(w.Root(), link); err != nil {
		t.Fatal(err)
	}
	w2, err := New(Config{Root: link})
	if err != nil || w2.Root() != w.Root() || w2.Mode() != WorkspaceWrite {
		t.Fatalf("New through a link: %v, %v", w2, err)
	}
	if got, err := w2.Resolve(link + "/file.txt"); err != nil || got != w.Root()+"/file.txt" {
		t.Fatalf("a path through the link to the root: %q, %v", got, err)
	}
	for _, bad := range []string{filepath.Join(base, "ws/file.txt"), filepath.Join(base, "nowhere")} {
		if _, err := New(Config{Root: bad}); err == nil {
			t.Errorf("New(%q) accepted it", bad)
		}
	}
	if _, err := New(Config{Root: w.Root(), Mode: "yolo"}); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("New with an unknown mode: %v", err)
	}
}

func TestNarrowReturnsANarrowerWorkspace(t *testing.T) {
	t.Parallel()
	w, _ := tree(t)
	if got := w.Narrow(ReadOnly); got.Mode() != ReadOnly || got.Root() != w.Root() || w.Mode() != WorkspaceWrite {
		t.Fatalf("Narrow(read-only): %s, original %s", got.Mode(), w.Mode())
	}
	if got := w.Narrow(DangerFullAccess); got.Mode() != WorkspaceWrite {
		t.Fatalf("Narrow widened to %s", got.Mode())
	}
}
