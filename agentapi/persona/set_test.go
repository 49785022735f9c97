package persona

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// write creates dir/name with content, making folders as needed.
func write(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func agent(name, body string) string {
	return "---\nname: " + name + "\ndescription: the " + name + "\n---\n" + body + "\n"
}

func TestSearchDirsPutsExplicitFoldersFirstThenTheWorkspaceThenHome(t *testing.T) {
	got := SearchDirs([]string{"/a", "/b/", "/a"}, "/ws", "/home/u")
	want := []string{"/a", "/b", "/ws/.claude/agents", "/ws/.wfrun/agents", "/home/u/.claude/agents"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("SearchDirs = %v, want %v", got, want)
	}
	if got := SearchDirs(nil, "", ""); len(got) != 0 {
		t.Errorf("SearchDirs with nothing = %v, want none", got)
	}
	if got := SearchDirs(nil, "/ws", "/ws"); !reflect.DeepEqual(got, []string{"/ws/.claude/agents", "/ws/.wfrun/agents"}) {
		t.Errorf("a home that is the workspace is searched twice: %v", got)
	}
}

func TestTheFirstFolderThatDefinesANameWins(t *testing.T) {
	root := t.TempDir()
	explicit := filepath.Join(root, "explicit")
	ws := filepath.Join(root, "ws")
	home := filepath.Join(root, "home")
	write(t, explicit, "reviewer.md", agent("reviewer", "from --agents-dir"))
	write(t, ws, ".claude/agents/reviewer.md", agent("reviewer", "from the workspace"))
	write(t, ws, ".claude/agents/tester.md", agent("tester", "claude tester"))
	write(t, ws, ".wfrun/agents/tester.md", agent("tester", "wfrun tester"))
	write(t, ws, ".wfrun/agents/linter.md", agent("linter", "wfrun linter"))
	write(t, home, ".claude/agents/linter.md", agent("linter", "home linter"))
	write(t, home, ".claude/agents/helper.md", agent("helper", "home helper"))

	s := Load(SearchDirs([]string{explicit}, ws, home))
	for name, body := range map[string]string{
		"reviewer": "from --agents-dir", "tester": "claude tester", "linter": "wfrun linter", "helper": "home helper",
	} {
		p, err := s.Lookup(name)
		if err != nil || p.Prompt != body {
			t.Errorf("Lookup(%s) = %q, %v; want the prompt %q", name, p.Prompt, err, body)
		}
	}
	if errs := s.Errors(); len(errs) != 0 {
		t.Errorf("errors = %v, want none", errs)
	}
	if got := len(s.FoundDirs()); got != 4 {
		t.Errorf("found dirs = %v, want 4", s.FoundDirs())
	}
}

func TestAFileOverridesABuiltInOfTheSameName(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "explore.md", agent("Explore", "our own explorer"))
	s := Load([]string{dir})
	p, err := s.Lookup("Explore")
	if err != nil || p.Prompt != "our own explorer" || p.BuiltIn() || p.ReadOnly {
		t.Errorf("Lookup(Explore) = %+v, %v; want the file's persona", p, err)
	}
	if p, _ := s.Lookup("Plan"); !p.BuiltIn() || !p.ReadOnly {
		t.Errorf("Plan = %+v, want the read-only built-in", p)
	}
}

func TestTheBuiltInsExistWithoutAnyFolder(t *testing.T) {
	for _, s := range []*Set{nil, Load(nil), Load([]string{filepath.Join(t.TempDir(), "missing")})} {
		if got := s.Names(); !reflect.DeepEqual(got, []string{"Explore", "Plan", "general-purpose"}) {
			t.Errorf("names = %v, want the three built-ins", got)
		}
		gp, err := s.Lookup(GeneralPurpose)
		if err != nil || gp.Tools != nil || gp.ReadOnly || gp.Prompt == "" {
			t.Errorf("general-purpose = %+v, %v; want every tool, not read-only, with a prompt", gp, err)
		}
		ex, _ := s.Lookup(Explore)
		if !reflect.DeepEqual(ex.Tools, []string{"Read", "Glob", "Grep", "Bash"}) || !ex.ReadOnly {
			t.Errorf("Explore = %+v, want read-only Read, Glob, Grep, Bash", ex)
		}
		if len(s.FoundDirs()) != 0 || len(s.Errors()) != 0 {
			t.Errorf("found %v, errors %v; want none", s.FoundDirs(), s.Errors())
		}
	}
}

func TestAMalformedFileIsAnErrorAndTheOthersStillLoad(t *testing.T) {
	dir := t.TempDir()
	bad := write(t, dir, "broken.md", "---\nname: broken\ntools: [Read\n---\nbody\n")
	write(t, dir, "good.md", agent("good", "fine"))
	write(t, dir, "nested/deeper/inner.md", agent("inner", "found in a subfolder"))
	write(t, dir, "notes.txt", "not markdown, not read")
	dup := write(t, dir, "z-dup.md", agent("good", "second"))
	s := Load([]string{dir})

	if p, err := s.Lookup("good"); err != nil || p.Prompt != "fine" {
		t.Errorf("good = %q, %v", p.Prompt, err)
	}
	if _, err := s.Lookup("inner"); err != nil {
		t.Errorf("a persona in a subfolder is not loaded: %v", err)
	}
	errs := s.Errors()
	if len(errs) != 2 {
		t.Fatalf("errors = %v, want the broken file and the duplicate", errs)
	}
	if errs[0].File != bad || errs[0].Line != 3 || !strings.Contains(errs[0].Error(), bad+":3: the front matter is not valid YAML") {
		t.Errorf("error 0 = %v, want %s:3 and a YAML sentence", errs[0], bad)
	}
	if errs[1].File != dup || !strings.Contains(errs[1].Message, `defines the persona "good", which `+filepath.Join(dir, "good.md")+" already defines") {
		t.Errorf("error 1 = %v, want the duplicate named", errs[1])
	}
}

func TestAFolderThatIsAFileIsAnError(t *testing.T) {
	f := write(t, t.TempDir(), "agents", "a file")
	s := Load([]string{f})
	if errs := s.Errors(); len(errs) != 1 || !strings.Contains(errs[0].Error(), "is not a folder") {
		t.Errorf("errors = %v", errs)
	}
}

func TestASymlinkedPersonaFileIsFollowed(t *testing.T) {
	root := t.TempDir()
	target := write(t, root, "shared/reviewer.md", agent("reviewer", "shared"))
	dir := filepath.Join(root, "agents")
	os.MkdirAll(dir, 0o755)
	if err := os.Symlink(target, filepath.Join(dir, "reviewer.md")); err != nil {
		t.Skip(err)
	}
	if p, err := Load([]string{dir}).Lookup("reviewer"); err != nil || p.Prompt != "shared" {
		t.Errorf("Lookup = %+v, %v", p, err)
	}
}

func TestAnUnknownNameSaysWhereWfrunLookedAndWhatIsClose(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "reviewer.md", agent("reviewer", "x"))
	write(t, dir, "route-auditor.md", agent("route-auditor", "x"))
	s := Load([]string{dir, "/nowhere/agents"})

	_, err := s.Lookup("reviwer")
	var ue *UnknownError
	if !errors.As(err, &ue) || !errors.Is(err, ErrUnknown) {
		t.Fatalf("Lookup(reviwer) = %v, want an *UnknownError", err)
	}
	if !reflect.DeepEqual(ue.Suggestions, []string{"reviewer"}) {
		t.Errorf("suggestions = %v, want [reviewer]", ue.Suggestions)
	}
	msg := err.Error()
	for _, want := range []string{`no persona is named "reviwer"`, dir, "/nowhere/agents", "the built-ins", `did you mean "reviewer"?`,
		`"Explore", "Plan", "general-purpose", "reviewer", "route-auditor"`, "name: reviwer"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not contain %q", msg, want)
		}
	}
	_, err = s.Lookup("zzzzzz")
	if errors.As(err, &ue); len(ue.Suggestions) != 0 || !strings.Contains(err.Error(), "the built-ins. Use one of") {
		t.Errorf("a name close to nothing: %v", err)
	}
}

func TestANameDifferingOnlyInCaseIsFoundWhenUnique(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.md", agent("Reviewer", "upper"))
	write(t, dir, "b.md", agent("reviewer", "lower"))
	s := Load([]string{dir})
	if p, err := s.Lookup("explore"); err != nil || p.Name != Explore {
		t.Errorf("Lookup(explore) = %+v, %v; want Explore", p, err)
	}
	if p, _ := s.Lookup("reviewer"); p.Prompt != "lower" {
		t.Errorf("an exact match must win: got %q", p.Prompt)
	}
	if _, err := s.Lookup("REVIEWER"); err == nil {
		t.Error("REVIEWER matches two personas without case, and was found anyway")
	}
}

func TestPersonasAreCopiesTheCallerMayChange(t *testing.T) {
	s := Load(nil)
	p, _ := s.Lookup(Explore)
	p.Tools[0] = "Write"
	if q, _ := s.Lookup(Explore); q.Tools[0] != "Read" {
		t.Errorf("changing a looked-up persona changed the set: %v", q.Tools)
	}
}

func TestASetIsSafeForConcurrentUse(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "reviewer.md", agent("reviewer", "x"))
	s := Load([]string{dir})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				_, _ = s.Lookup("reviewer")
				_, _ = s.Lookup("nope")
				_ = s.Personas()
			}
		})
	}
	wg.Wait()
}

// TestAgentFilesAsPeopleWriteThemLoadWithAWarning lays out a Claude Code
// agents folder as real repositories do: a README.md beside the agents and
// a description with an unquoted ": ". The README is skipped, the agent
// loads, and the warning names the file and the line.
func TestAgentFilesAsPeopleWriteThemLoadWithAWarning(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "README.md", "# Our agents\n\nEach file here is one sub-agent: see below.\n")
	colon := write(t, dir, "floor.md", "---\nname: floor\ndescription: THE FLOOR PRODUCER: per triage.md, one artifact.\ntools: Read, Grep\n---\nbody\n")
	write(t, dir, "good.md", agent("good", "fine"))
	s := Load([]string{dir})

	if errs := s.Errors(); len(errs) != 0 {
		t.Fatalf("errors = %v, want none (README.md skipped, floor.md read leniently)", errs)
	}
	p, err := s.Lookup("floor")
	if err != nil || p.Description != "THE FLOOR PRODUCER: per triage.md, one artifact." || !reflect.DeepEqual(p.Tools, []string{"Read", "Grep"}) {
		t.Fatalf("floor = %+v, %v", p, err)
	}
	w := s.Warnings()
	if len(w) != 1 || w[0].File != colon || w[0].Line != 3 || !strings.Contains(w[0].Message, "read line by line") {
		t.Errorf("warnings = %v, want one for %s:3", w, colon)
	}
	if len(p.Warnings) != 1 {
		t.Errorf("the persona carries %d warnings, want 1", len(p.Warnings))
	}
}
