package persona

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden is what a parse test records: the persona and its prompt, or the
// error.
type golden struct {
	Persona *Persona `json:"persona,omitempty"`
	Prompt  string   `json:"prompt,omitempty"`
	Error   string   `json:"error,omitempty"`
	Line    int      `json:"line,omitempty"`
}

// TestParseMatchesTheGoldenFiles parses every testdata/parse/*.md, the three
// ways real repositories write tools among them, and compares the persona
// or the error (with its line in the user's file) with NAME.golden.
func TestParseMatchesTheGoldenFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/parse/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".md")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var g golden
			p, err := Parse(file, data)
			if err != nil {
				var le *LoadError
				if !errors.As(err, &le) {
					t.Fatalf("Parse returned %T, want a *LoadError", err)
				}
				if le.File != file {
					t.Errorf("error names %q, want %q", le.File, file)
				}
				g.Error, g.Line = err.Error(), le.Line
			} else {
				g.Persona, g.Prompt = &p, p.Prompt
			}
			if strings.HasPrefix(name, "bad-") != (g.Error != "") {
				t.Errorf("Parse(%s) error = %q; files named bad-* must fail and only they", file, g.Error)
			}
			got, _ := json.MarshalIndent(g, "", "  ")
			got = append(got, '\n')
			path := strings.TrimSuffix(file, ".md") + ".golden"
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if string(got) != string(want) {
				t.Errorf("Parse(%s) =\n%s\nwant (%s)\n%s", file, got, path, want)
			}
		})
	}
}

func TestAFileTooLargeIsRefusedBeforeParsing(t *testing.T) {
	data := []byte("---\nname: big\n---\n" + strings.Repeat("x", MaxFileSize))
	_, err := Parse("big.md", data)
	if err == nil || !strings.Contains(err.Error(), "more than the") {
		t.Errorf("Parse(huge) = %v, want a size error", err)
	}
}

func TestSplitToolsKeepsSpecifiersWhole(t *testing.T) {
	for in, want := range map[string]string{
		"Read, Grep,Glob":                  "Read|Grep|Glob",
		"Read Grep":                        "Read|Grep",
		"Bash(git diff:*), Read":           "Bash(git diff:*)|Read",
		" , ,":                             "",
		"mcp__github__create_issue, Write": "mcp__github__create_issue|Write",
	} {
		if got := strings.Join(splitTools(in), "|"); got != want {
			t.Errorf("splitTools(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzParse feeds arbitrary files to the front-matter parser: it must never
// panic, a persona it accepts has a name, and every error is a *LoadError
// whose line lies inside the file.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/parse/*.md")
	for _, file := range files {
		data, _ := os.ReadFile(file)
		f.Add(data)
	}
	f.Add([]byte("---\nname: a\ntools: &x [*x]\n---\n"))
	f.Add([]byte("---\r\n---\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("f.md", data)
		if err != nil {
			var le *LoadError
			if !errors.As(err, &le) || le.Message == "" {
				t.Fatalf("Parse error %v is not a *LoadError with a sentence", err)
			}
			if lines := strings.Count(string(data), "\n") + 1; le.Line < 0 || le.Line > lines+1 {
				t.Fatalf("error line %d is outside the file's %d lines: %v", le.Line, lines, err)
			}
			return
		}
		if strings.TrimSpace(p.Name) == "" {
			t.Fatalf("Parse accepted a persona without a name: %+v", p)
		}
		_, _ = NarrowTools([]string{"Read", "Bash", "mcp__a__b"}, &p, nil)
	})
}
