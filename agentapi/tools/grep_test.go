package tools

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/agentapi/workspace"
)

func TestGrepFindsFilesAndRespectsGitignore(t *testing.T) {
	t.Parallel()
	f := repoFixture(t, workspace.ReadOnly)
	cases := []struct {
		args obj
		want []string
	}{
		{obj{"pattern": "package"}, []string{".hidden/config.go", "main.go", "src/app.go", "src/util/strings.go", "src/util/strings_test.go"}},
		{obj{"pattern": "TODO"}, []string{"main.go", "src/app.go", "web/app.ts"}},
		{obj{"pattern": "TODO", "type": "go"}, []string{"main.go", "src/app.go"}},
		{obj{"pattern": "TODO", "type": "ts"}, []string{"web/app.ts"}},
		{obj{"pattern": "TODO", "glob": "*.ts"}, []string{"web/app.ts"}},
		{obj{"pattern": "TODO", "glob": "src/**"}, []string{"src/app.go"}},
		{obj{"pattern": "todo", "-i": true}, []string{"main.go", "src/app.go", "web/app.ts"}},
		{obj{"pattern": "todo"}, nil},
		{obj{"pattern": "package", "path": "src/util"}, []string{"src/util/strings.go", "src/util/strings_test.go"}},
		{obj{"pattern": "package", "path": "src/app.go"}, []string{"src/app.go"}},
		{obj{"pattern": "^ignored"}, nil},
		{obj{"pattern": "name: reviewer"}, []string{".wfrun/agents/reviewer.md"}},
		{obj{"pattern": "anchored"}, []string{"docs/secret.txt"}},
	}
	for _, c := range cases {
		out := f.ok(Grep, c.args)
		if got := f.paths(out); !slices.Equal(got, c.want) {
			t.Errorf("Grep %v: %v, want %v\n%s", c.args, got, c.want, out)
		}
		if c.want != nil && !strings.HasPrefix(out, fmt.Sprintf("Found %d files\n", len(c.want))) {
			t.Errorf("Grep %v: %q does not start with the count", c.args, out)
		}
	}
	if out := f.ok(Grep, obj{"pattern": "nothing-matches-this"}); out != "No matches found" {
		t.Errorf("no match: %q", out)
	}
}

func TestGrepContentAndCountModes(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.ReadOnly, map[string]string{
		"a.txt":   "one\ntwo\nmatch 1\nthree\nfour\nfive\nsix\nmatch 2\nmatch 3\nseven\n",
		"b.txt":   "nothing\nmatch here\r\n",
		"bin.dat": "match\x00binary",
		"m.go":    "type T struct {\n\tA int\n\tB string\n}\n",
	})
	golden(t, f, "grep-content.golden", f.ok(Grep, obj{"pattern": "match", "output_mode": "content", "-C": 1, "glob": "*.txt"}))
	if got := f.ok(Grep, obj{"pattern": "match", "output_mode": "count"}); !strings.Contains(got, "/a.txt:3") || !strings.Contains(got, "/b.txt:1") || strings.Contains(got, "bin.dat") {
		t.Errorf("count: %q", got)
	}
	if got := f.ok(Grep, obj{"pattern": "match", "output_mode": "content", "-n": false, "path": "b.txt"}); got != f.root+"/b.txt:match here" {
		t.Errorf("without line numbers: %q", got)
	}
	got := f.ok(Grep, obj{"pattern": `struct \{[\s\S]*?B`, "multiline": true, "output_mode": "content"})
	if got != f.root+"/m.go:1:type T struct {\n"+f.root+"/m.go:2:\tA int\n"+f.root+"/m.go:3:\tB string" {
		t.Errorf("multiline: %q", got)
	}
	got = f.ok(Grep, obj{"pattern": "match", "output_mode": "content", "head_limit": 2, "path": "a.txt"})
	if !strings.HasSuffix(got, "[1 more entries not shown: call again with offset 2, or narrow the search]") || strings.Count(got, "match") != 2 {
		t.Errorf("head_limit: %q", got)
	}
	if got := f.ok(Grep, obj{"pattern": "match", "output_mode": "content", "offset": 2, "path": "a.txt"}); got != f.root+"/a.txt:9:match 3" {
		t.Errorf("offset: %q", got)
	}
	f.fails(Grep, obj{"pattern": "func(x"}, "not a valid regular expression", `\{`)
	f.fails(Grep, obj{"pattern": "(?<=a)b"}, "look-arounds")
	f.fails(Grep, obj{"pattern": "x", "type": "cobol"}, "unknown type", "go, haskell")
	f.fails(Grep, obj{"pattern": "x", "path": "../outside"}, "outside the workspace")
}

func TestGrepBoundsItsOutput(t *testing.T) {
	t.Parallel()
	var big strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&big, "needle %d %s\n", i, strings.Repeat("x", 40))
	}
	f := newFixture(t, workspace.ReadOnly, map[string]string{"big.txt": big.String(), "wide.txt": "needle " + strings.Repeat("w", 3000) + "\n"})
	got := f.ok(Grep, obj{"pattern": "needle", "output_mode": "content", "head_limit": 100000, "path": "big.txt"})
	if len(got) > maxOutput+200 || !strings.Contains(got, "[output truncated at 30000 bytes") {
		t.Fatalf("%d bytes back, ends %q", len(got), got[len(got)-120:])
	}
	got = f.ok(Grep, obj{"pattern": "needle", "output_mode": "content", "path": "big.txt"})
	if strings.Count(got, "\n") > grepEntries+2 || !strings.Contains(got, "4750 more entries not shown") {
		t.Fatalf("the default head_limit: %d lines, ends %q", strings.Count(got, "\n"), got[len(got)-120:])
	}
	got = f.ok(Grep, obj{"pattern": "needle", "output_mode": "content", "path": "wide.txt"})
	if len(got) > 700 || !strings.HasSuffix(got, "… [line cut]") {
		t.Fatalf("a wide line: %d bytes", len(got))
	}
}
