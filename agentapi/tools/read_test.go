package tools

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/agentapi/workspace"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got, with the workspace root written as $ROOT, to
// testdata/NAME.
func golden(t *testing.T, f *fixture, name, got string) {
	t.Helper()
	got = strings.ReplaceAll(got, f.root, "$ROOT") + "\n"
	file := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("%s differs:\n--- got\n%s--- want\n%s", name, got, want)
	}
}

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString("line ")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString("\n")
	}
	return b.String()
}

func TestReadShowsLineNumbers(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.ReadOnly, map[string]string{"src/main.go": "package main\n\r\nfunc main() {\n\tprintln(\"hi\")\n}\n"})
	golden(t, f, "read.golden", f.ok(Read, obj{"file_path": "src/main.go"}))
	if got := f.ok(Read, obj{"file_path": filepath.Join(f.root, "src/main.go"), "offset": 3, "limit": 2}); got != "     3\tfunc main() {\n     4\t\tprintln(\"hi\")\n[showing lines 3-4 of 5 (the limit of 2 lines); call Read with offset 5 to see more]" {
		t.Fatalf("offset 3 limit 2:\n%s", got)
	}
}

func TestReadBoundsWhatItShows(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.ReadOnly, map[string]string{
		"long.txt":  numbered(2500),
		"wide.txt":  "short\n" + strings.Repeat("é", 5000) + "\nafter\n",
		"huge.txt":  strings.Repeat(strings.Repeat("y", 1500)+"\n", 200),
		"one.txt":   strings.Repeat("z", 3<<20), // a single line of 3 MiB
		"empty.txt": "",
	})
	got := f.ok(Read, obj{"file_path": "long.txt"})
	if !strings.Contains(got, "  2000\tline") || strings.Contains(got, "  2001\t") ||
		!strings.HasSuffix(got, "[showing lines 1-2000 of 2500 (the limit of 2000 lines); call Read with offset 2001 to see more]") {
		t.Fatalf("2500 lines: ends with %q", got[max(0, len(got)-200):])
	}
	got = f.ok(Read, obj{"file_path": "wide.txt"})
	if !strings.Contains(got, strings.Repeat("é", 2000)+"… [line cut]") || strings.Contains(got, strings.Repeat("é", 2001)) ||
		!strings.Contains(got, "     3\tafter") || !strings.Contains(got, "lines longer than 2000 characters were cut") {
		t.Fatalf("a wide line was not cut by characters:\n%.300s", got)
	}
	got = f.ok(Read, obj{"file_path": "huge.txt"})
	if len(got) > maxReadBytes+300 || !strings.Contains(got, "100 KiB, the most one Read shows") {
		t.Fatalf("200 lines of 1500 bytes: %d bytes back, ends %q", len(got), got[len(got)-150:])
	}
	got = f.ok(Read, obj{"file_path": "one.txt"})
	if len(got) > 10000 || !strings.Contains(got, "     1\tzzz") {
		t.Fatalf("a 3 MiB line came back as %d bytes", len(got))
	}
	if got := f.ok(Read, obj{"file_path": "empty.txt"}); !strings.Contains(got, "is empty") {
		t.Fatalf("empty file: %q", got)
	}
	f.fails(Read, obj{"file_path": "long.txt", "offset": 2600}, "has 2500 lines", "past its end")
}

func TestReadRefusesWhatIsNotATextFileInside(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.ReadOnly, map[string]string{
		"bin.dat":  "\x7fELF\x00\x00\x01",
		"dir/a":    "a",
		"leak":     "->../outside/secret",
		"leak-abs": "->/etc/passwd",
	})
	f.fails(Read, obj{"file_path": "bin.dat"}, "binary")
	f.fails(Read, obj{"file_path": "dir"}, "is a folder", "Glob")
	f.fails(Read, obj{"file_path": "missing.txt"}, "no such file")
	for _, p := range []string{"leak", "leak-abs", "../outside/secret", filepath.Join(f.outside, "secret"), "/etc/passwd"} {
		msg := f.fails(Read, obj{"file_path": p}, "outside the workspace")
		if strings.Contains(msg, "top secret") {
			t.Fatalf("Read %s leaked the content: %s", p, msg)
		}
	}
	f.fails(Read, obj{}, "needs file_path")
}
