package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi/workspace"
)

// repoFiles is a small repository with ignore rules at several levels.
var repoFiles = map[string]string{
	".gitignore":                    "*.log\nbuild/\n/secret.txt\n!keep.log\nnode_modules\n",
	"main.go":                       "package main\n// TODO: main\n",
	"keep.log":                      "kept despite *.log\n",
	"debug.log":                     "ignored\n",
	"secret.txt":                    "ignored at the top only\n",
	"docs/secret.txt":               "not ignored: the rule is anchored\n",
	"build/out.go":                  "package build // ignored folder\n",
	"node_modules/x/index.js":       "ignored\n",
	"src/app.go":                    "package src\n// TODO: app\n",
	"src/.gitignore":                "generated_*.go\n",
	"src/generated_api.go":          "package src // ignored by the nested .gitignore\n",
	"src/util/strings.go":           "package util\n",
	"src/util/strings_test.go":      "package util\n",
	".hidden/config.go":             "package hidden\n",
	".wfrun/worktrees/ag_1/main.go": "package main // another child's copy\n",
	".wfrun/agents/reviewer.md":     "---\nname: reviewer\n---\n",
	"web/app.ts":                    "let x = 1 // TODO: web\n",
	"web/view.tsx":                  "export {}\n",
}

func repoFixture(t *testing.T, mode workspace.Mode) *fixture {
	t.Helper()
	f := newFixture(t, mode, repoFiles)
	f.gitInit()
	if err := os.WriteFile(filepath.Join(f.root, ".git/info/exclude"), []byte("*.tmp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.files(map[string]string{"scratch.tmp": "excluded by info/exclude\n"})
	return f
}

// paths turns a result's absolute paths into paths relative to the root.
func (f *fixture) paths(out string) []string {
	var ps []string
	for _, l := range strings.Split(out, "\n") {
		if rel, ok := strings.CutPrefix(l, f.root+"/"); ok {
			ps = append(ps, rel)
		}
	}
	slices.Sort(ps)
	return ps
}

func TestGlobMatchesDoublestarPatternsAndRespectsGitignore(t *testing.T) {
	t.Parallel()
	f := repoFixture(t, workspace.ReadOnly)
	cases := []struct {
		pattern, path string
		want          []string
	}{
		{"**/*.go", "", []string{".hidden/config.go", "main.go", "src/app.go", "src/util/strings.go", "src/util/strings_test.go"}},
		{"*.go", "", []string{"main.go"}},
		{"*.log", "", []string{"keep.log"}},
		{"**/secret.txt", "", []string{"docs/secret.txt"}},
		{"src/**/*_test.go", "", []string{"src/util/strings_test.go"}},
		{"**/*.{ts,tsx}", "web", []string{"web/app.ts", "web/view.tsx"}},
		{"*.go", "src/util", []string{"src/util/strings.go", "src/util/strings_test.go"}},
		{"**/*", ".wfrun", []string{".wfrun/agents/reviewer.md"}},
		{"**/*.tmp", "", nil},
		{"**/*.js", "", nil},
	}
	for _, c := range cases {
		out := f.ok(Glob, obj{"pattern": c.pattern, "path": c.path})
		if got := f.paths(out); !slices.Equal(got, c.want) {
			t.Errorf("Glob %q in %q: %v, want %v\n%s", c.pattern, c.path, got, c.want, out)
		}
	}
	if out := f.ok(Glob, obj{"pattern": filepath.Join(f.root, "src/*.go")}); !slices.Equal(f.paths(out), []string{"src/app.go"}) {
		t.Errorf("an absolute pattern: %s", out)
	}
	f.fails(Glob, obj{"pattern": "[a-"}, "not a valid glob")
	f.fails(Glob, obj{"pattern": "*", "path": "../outside"}, "outside the workspace")
	f.fails(Glob, obj{"pattern": "/etc/*"}, "outside")
	f.fails(Glob, obj{"pattern": "*", "path": "main.go"}, "is a file")
	if out := f.ok(Glob, obj{"pattern": "nowhere/**/*.go"}); out != "No files found" {
		t.Errorf("a missing base folder: %q", out)
	}
}

func TestGlobListsTheNewestFirstAndCapsTheList(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 150 {
		files[fmt.Sprintf("f/%03d.txt", i)] = "x"
	}
	f := newFixture(t, workspace.ReadOnly, files)
	old := time.Now().Add(-time.Hour)
	for i := range 150 {
		mt := old.Add(time.Duration(i) * time.Second)
		if err := os.Chtimes(filepath.Join(f.root, fmt.Sprintf("f/%03d.txt", i)), mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	out := f.ok(Glob, obj{"pattern": "**/*.txt"})
	lines := strings.Split(out, "\n")
	if len(lines) != 101 || lines[0] != filepath.Join(f.root, "f/149.txt") || lines[99] != filepath.Join(f.root, "f/050.txt") ||
		lines[100] != "[50 more files not shown (at most 100, newest first): use a more specific pattern or path]" {
		t.Fatalf("got %d lines: first %q, last %q", len(lines), lines[0], lines[len(lines)-1])
	}
}

func TestGlobDoesNotFollowLinksOut(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.ReadOnly, map[string]string{"out": "->../outside", "a.txt": "a"})
	if got := f.paths(f.ok(Glob, obj{"pattern": "**/*"})); !slices.Equal(got, []string{"a.txt", "out"}) {
		t.Fatalf("got %v: the walk entered a link", got)
	}
}

func TestGitignoreAppliesOutsideARepositoryToo(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.ReadOnly, map[string]string{".gitignore": "dist/\n", "dist/app.js": "x", "src/app.js": "x"})
	if got := f.paths(f.ok(Glob, obj{"pattern": "**/*.js"})); !slices.Equal(got, []string{"src/app.js"}) {
		t.Fatalf("got %v", got)
	}
}

func TestAWorktreeHonoursTheRepositorysIgnoreRules(t *testing.T) {
	t.Parallel()
	f := repoFixture(t, workspace.ReadOnly)
	git := func(args ...string) {
		out, err := exec.Command("git", append([]string{"-C", f.root, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("add", ".")
	git("commit", "--quiet", "-m", "base")
	wt, err := f.set.Workspace().AddWorktree(context.Background(), "ag_ignore")
	if err != nil {
		t.Fatal(err)
	}
	defer wt.Finish(context.Background())
	// Ignored in the worktree by info/exclude (shared) and by .gitignore (checked out).
	for _, name := range []string{"scratch.tmp", "debug.log", "src/main.go"} {
		if err := os.WriteFile(filepath.Join(wt.Path(), name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	set, err := New(wt.Workspace(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	out, err := set.Call(context.Background(), Glob, []byte(`{"pattern":"**/*.{tmp,log}"}`))
	if err != nil || strings.Count(out, "\n") != 0 || !strings.HasSuffix(out, "/keep.log") {
		t.Fatalf("got %q, %v: want keep.log only", out, err)
	}
}
