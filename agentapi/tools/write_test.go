package tools

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wfrun/wfrun/agentapi/workspace"
)

func TestWriteCreatesAndOverwritesInsideOnly(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, map[string]string{
		"script.sh":   "#!/bin/sh\n",
		"out-link":    "->../outside",
		"dangling":    "->../outside/new-file",
		"in-link":     "->src",
		"src/keep.go": "package src\n",
	})
	if err := os.Chmod(filepath.Join(f.root, "script.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	got := f.ok(Write, obj{"file_path": "deep/new/dir/file.txt", "content": "one\ntwo\n"})
	if got != "Created "+filepath.Join(f.root, "deep/new/dir/file.txt")+" (8 bytes, 2 lines)" || f.read("deep/new/dir/file.txt") != "one\ntwo\n" {
		t.Fatalf("create: %q", got)
	}
	got = f.ok(Write, obj{"file_path": filepath.Join(f.root, "script.sh"), "content": "#!/bin/sh\necho hi\n"})
	if !strings.HasPrefix(got, "Overwrote ") || f.read("script.sh") != "#!/bin/sh\necho hi\n" {
		t.Fatalf("overwrite: %q", got)
	}
	if fi, _ := os.Stat(filepath.Join(f.root, "script.sh")); fi.Mode().Perm() != 0o755 {
		t.Fatalf("overwriting lost the file's permissions: %v", fi.Mode())
	}
	f.ok(Write, obj{"file_path": "in-link/via-link.go", "content": "x"})
	if f.read("src/via-link.go") != "x" {
		t.Fatal("a write through a link inside did not land where it leads")
	}
	for _, p := range []string{"out-link/x", "dangling", "../outside/x", filepath.Join(f.outside, "x"), "/tmp/wfrun-write-test"} {
		f.fails(Write, obj{"file_path": p, "content": "pwned"}, "outside the workspace")
	}
	if entries, _ := os.ReadDir(f.outside); len(entries) != 1 {
		t.Fatalf("Write created something outside: %v", entries)
	}
	f.fails(Write, obj{"file_path": "src", "content": "x"}, "is a folder")
	f.fails(Write, obj{"file_path": "big", "content": strings.Repeat("x", maxWriteBytes+1)}, "16 MiB")
}

func TestEditReplacesExactlyOneOccurrenceUnlessToldOtherwise(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, map[string]string{
		"a.go":   "package a\n\nfunc A() int { return 1 }\n\nfunc B() int { return 1 }\n",
		"crlf":   "one\r\ntwo\r\n",
		"leak":   "->../outside/secret",
		"folder": "",
	})
	f.fails(Edit, obj{"file_path": "a.go", "old_string": "return 1", "new_string": "return 2"}, "occurs 2 times", "replace_all", "surrounding")
	if f.read("a.go") != "package a\n\nfunc A() int { return 1 }\n\nfunc B() int { return 1 }\n" {
		t.Fatal("an ambiguous edit changed the file")
	}
	got := f.ok(Edit, obj{"file_path": "a.go", "old_string": "func B() int { return 1 }", "new_string": "func B() int { return 2 }"})
	if got != "Edited "+filepath.Join(f.root, "a.go")+": replaced 1 occurrence at line 5" {
		t.Fatalf("unique edit: %q", got)
	}
	got = f.ok(Edit, obj{"file_path": "a.go", "old_string": "int", "new_string": "int64", "replace_all": true})
	if !strings.Contains(got, "replaced 2 occurrences (the first at line 3)") || f.read("a.go") != "package a\n\nfunc A() int64 { return 1 }\n\nfunc B() int64 { return 2 }\n" {
		t.Fatalf("replace_all: %q\n%s", got, f.read("a.go"))
	}
	f.fails(Edit, obj{"file_path": "a.go", "old_string": "nowhere", "new_string": "x"}, "was not found", "exactly")
	f.fails(Edit, obj{"file_path": "crlf", "old_string": "one\ntwo", "new_string": "x"}, `\r\n`)
	f.fails(Edit, obj{"file_path": "a.go", "old_string": "", "new_string": "x"}, "empty", "Write")
	f.fails(Edit, obj{"file_path": "a.go", "old_string": "A", "new_string": "A"}, "the same")
	f.fails(Edit, obj{"file_path": "missing.go", "old_string": "a", "new_string": "b"}, "does not exist", "Write")
	f.fails(Edit, obj{"file_path": "leak", "old_string": "top", "new_string": "x"}, "outside the workspace")
	if b, _ := os.ReadFile(filepath.Join(f.outside, "secret")); string(b) != "top secret\n" {
		t.Fatal("Edit changed a file outside")
	}
}

func TestConcurrentEditsOfOneFileAllLand(t *testing.T) {
	t.Parallel()
	var content strings.Builder
	for i := range 20 {
		content.WriteString("slot " + string(rune('a'+i)) + " empty\n")
	}
	f := newFixture(t, workspace.WorkspaceWrite, map[string]string{"slots.txt": content.String()})
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			s := "slot " + string(rune('a'+i)) + " "
			if _, err := f.call(Edit, obj{"file_path": "slots.txt", "old_string": s + "empty", "new_string": s + "full"}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := f.read("slots.txt"); strings.Contains(got, "empty") {
		t.Fatalf("an edit was lost:\n%s", got)
	}
}
