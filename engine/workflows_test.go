package engine_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/wfrun/wfrun/engine"
)

// save writes dir/rel, making folders as needed.
func save(t *testing.T, dir, rel, src string) string {
	t.Helper()
	path := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func savedScript(name, ret string) string {
	return "export const meta = {name:'" + name + "', description:'the " + name + " workflow', phases:[{title:'Plan'},{title:'Do'}]}\nreturn " + ret
}

func TestWorkflowSearchDirsPutsExplicitFoldersFirstThenTheWorkspaceThenHome(t *testing.T) {
	got := engine.WorkflowSearchDirs([]string{"/a", "/b/", "/a"}, "/ws", "/home/u")
	want := []string{"/a", "/b", "/ws/.claude/workflows", "/ws/.wfrun/workflows", "/home/u/.claude/workflows"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("WorkflowSearchDirs = %v, want %v", got, want)
	}
	if got := engine.WorkflowSearchDirs(nil, "", ""); len(got) != 0 {
		t.Errorf("WorkflowSearchDirs with nothing = %v, want none", got)
	}
}

// TestAClaudeCodeProjectsSavedWorkflowsAreFoundInTheWorkspace lays out a
// project as Claude Code does — the saved workflow in .claude/workflows/ —
// and calls it by name, as real scripts do, with no explicit folder.
func TestAClaudeCodeProjectsSavedWorkflowsAreFoundInTheWorkspace(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	save(t, ws, ".claude/workflows/review-launcher.js", savedScript("review-launcher", "'launched ' + args.pr"))
	save(t, ws, ".wfrun/workflows/pr-iterate.js", savedScript("pr-iterate", "'iterated'"))
	save(t, home, ".claude/workflows/pr-iterate.js", savedScript("pr-iterate", "'from home'"))
	save(t, home, ".claude/workflows/personal.js", savedScript("personal", "'mine'"))
	eng := newEngine(t, engine.Config{WorkflowsDirs: engine.WorkflowSearchDirs(nil, ws, home), Workspace: ws})

	res, _ := start(t, eng, engine.WorkflowStartRequest{Script: "export const meta = {name:'outer', description:'d'}\n" +
		"return [await workflow('review-launcher', {pr: 7}), await workflow('pr-iterate'), await workflow('personal')]"})
	if string(res.Value) != `["launched 7","iterated","mine"]` {
		t.Fatalf("%+v %s", res, res.Value)
	}

	list := eng.SavedWorkflows()
	var names []string
	for _, w := range list.Workflows {
		names = append(names, w.Name)
	}
	if !reflect.DeepEqual(names, []string{"personal", "pr-iterate", "review-launcher"}) {
		t.Fatalf("listed %v", names)
	}
	for _, w := range list.Workflows {
		if w.Name == "pr-iterate" && !strings.HasPrefix(w.File, ws) {
			t.Errorf("pr-iterate comes from %s; the workspace's copy must win over home's", w.File)
		}
		if w.Name == "review-launcher" && (w.Description != "the review-launcher workflow" || !reflect.DeepEqual(w.Phases, []string{"Plan", "Do"})) {
			t.Errorf("review-launcher = %+v", w)
		}
	}
	if len(list.Dirs) != 3 || !list.Dirs[0].Found || !list.Dirs[2].Found {
		t.Errorf("dirs = %+v", list.Dirs)
	}
}

func TestTheExplicitFolderWinsAndEveryFolderIsNamedWhenANameIsMissing(t *testing.T) {
	ws, explicit := t.TempDir(), t.TempDir()
	save(t, ws, ".claude/workflows/shared.js", savedScript("shared", "'workspace'"))
	save(t, explicit, "shared.js", savedScript("shared", "'explicit'"))
	save(t, explicit, "broken.js", "export const meta = {name:'broken', description:'d'}\nconst n: number = 1")
	eng := newEngine(t, engine.Config{WorkflowsDirs: engine.WorkflowSearchDirs([]string{explicit}, ws, ""), Workspace: ws})

	res, _ := start(t, eng, engine.WorkflowStartRequest{Script: "export const meta = {name:'outer', description:'d'}\nreturn await workflow('shared')"})
	if string(res.Value) != `"explicit"` {
		t.Fatalf("%+v %s", res, res.Value)
	}
	res, _ = start(t, eng, engine.WorkflowStartRequest{Script: "export const meta = {name:'outer', description:'d'}\nreturn await workflow('nope')"})
	if res.ErrorCode != engine.CodeInvalidArgument || !strings.Contains(res.Error, explicit) || !strings.Contains(res.Error, filepath.Join(ws, ".claude", "workflows")) || !strings.Contains(res.Error, "shared") {
		t.Fatalf("%s: %s", res.ErrorCode, res.Error)
	}
	list := eng.SavedWorkflows()
	if len(list.Errors) != 1 || !strings.HasSuffix(list.Errors[0].File, "broken.js") || list.Errors[0].Line != 2 {
		t.Fatalf("errors = %+v", list.Errors)
	}
}

func TestTheOldSingleWorkflowsDirStillWorks(t *testing.T) {
	dir := t.TempDir()
	save(t, dir, "old.js", savedScript("old", "'old'"))
	eng := newEngine(t, engine.Config{WorkflowsDir: dir})
	res, _ := start(t, eng, engine.WorkflowStartRequest{Script: "export const meta = {name:'outer', description:'d'}\nreturn await workflow('old')"})
	if string(res.Value) != `"old"` {
		t.Fatalf("%+v %s", res, res.Value)
	}
}

func TestWorkflowScriptPathReadsAFileOfTheWorkspaceAndNothingOutsideIt(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	save(t, ws, "flows/child.js", savedScript("child", "'child ' + args.n"))
	secret := save(t, outside, "secret.js", savedScript("secret", "'leaked'"))
	if err := os.Symlink(secret, filepath.Join(ws, "flows", "link.js")); err != nil {
		t.Fatal(err)
	}
	eng := newEngine(t, engine.Config{Workspace: ws})
	cases := []struct {
		name, call, value string
		code              engine.ErrorCode
	}{
		{"relative path", "workflow({scriptPath: 'flows/child.js', args: {n: 1}})", `"child 1"`, ""},
		{"args as second argument", "workflow({scriptPath: 'flows/child.js'}, {n: 2})", `"child 2"`, ""},
		{"scriptPath wins over name", "workflow({scriptPath: 'flows/child.js', name: 'missing', args: {n: 3}})", `"child 3"`, ""},
		{"absolute path inside", "workflow({scriptPath: " + jsString(filepath.Join(ws, "flows", "child.js")) + ", args: {n: 4}})", `"child 4"`, ""},
		{"climbing out", "workflow({scriptPath: '../" + filepath.Base(outside) + "/secret.js'})", "", engine.CodeInvalidArgument},
		{"absolute outside", "workflow({scriptPath: " + jsString(secret) + "})", "", engine.CodeInvalidArgument},
		{"a link out", "workflow({scriptPath: 'flows/link.js'})", "", engine.CodeInvalidArgument},
		{"missing", "workflow({scriptPath: 'flows/none.js'})", "", engine.CodeInvalidArgument},
		{"unknown key", "workflow({scriptPath: 'flows/child.js', model: 'x'})", "", engine.CodeInvalidArgument},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, _ := start(t, eng, engine.WorkflowStartRequest{Script: "export const meta = {name:'outer', description:'d'}\nreturn await " + c.call})
			if res.ErrorCode != c.code || (c.code == "" && string(res.Value) != c.value) {
				t.Fatalf("%s = %s %s (%s), want %s %s", c.call, res.ErrorCode, res.Value, res.Error, c.code, c.value)
			}
			if strings.Contains(string(res.Value), "leaked") {
				t.Fatal("a file outside the workspace was run")
			}
		})
	}
}

func jsString(s string) string {
	return "'" + strings.ReplaceAll(s, `'`, `\'`) + "'"
}

// TestAWorkspaceReachedThroughALinkStillReadsItsFilesWithoutFollowingLinks
// names the workspace by a link to it, as a shell's current folder may be:
// a saved workflow that is itself a link out of the workspace is still
// refused.
func TestAWorkspaceReachedThroughALinkStillReadsItsFilesWithoutFollowingLinks(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	real := filepath.Join(root, "real")
	save(t, real, ".claude/workflows/good.js", savedScript("good", "'good'"))
	secret := save(t, outside, "evil.js", savedScript("evil", "'leaked'"))
	if err := os.Symlink(secret, filepath.Join(real, ".claude", "workflows", "evil.js")); err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(root, "link")
	if err := os.Symlink(real, ws); err != nil {
		t.Fatal(err)
	}
	eng := newEngine(t, engine.Config{WorkflowsDirs: engine.WorkflowSearchDirs(nil, ws, ""), Workspace: ws})
	res, _ := start(t, eng, engine.WorkflowStartRequest{Script: "export const meta = {name:'outer', description:'d'}\nreturn await workflow('good')"})
	if string(res.Value) != `"good"` {
		t.Fatalf("%+v %s", res, res.Value)
	}
	res, _ = start(t, eng, engine.WorkflowStartRequest{Script: "export const meta = {name:'outer', description:'d'}\nreturn await workflow('evil')"})
	if res.ErrorCode != engine.CodeInvalidArgument || strings.Contains(string(res.Value), "leaked") {
		t.Fatalf("a link out of the workspace was followed: %+v %s", res, res.Value)
	}
}

// TestAPlantedNamedPipeOrLinkForTheWorkflowsFolderNeitherBlocksNorLeads
// puts a named pipe where .claude/workflows should be, and a link to a
// folder outside the workspace where .wfrun/workflows should be: a lookup
// ends (with the name not found) and reads nothing outside.
func TestAPlantedNamedPipeOrLinkForTheWorkflowsFolderNeitherBlocksNorLeads(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	save(t, outside, "evil.js", savedScript("evil", "'leaked'"))
	if err := os.MkdirAll(filepath.Join(ws, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(ws, ".claude", "workflows"), 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	if err := os.MkdirAll(filepath.Join(ws, ".wfrun"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, ".wfrun", "workflows")); err != nil {
		t.Fatal(err)
	}
	eng := newEngine(t, engine.Config{WorkflowsDirs: engine.WorkflowSearchDirs(nil, ws, ""), Workspace: ws})
	res, _ := start(t, eng, engine.WorkflowStartRequest{Script: "export const meta = {name:'outer', description:'d'}\nreturn await workflow('evil')"})
	if res.ErrorCode != engine.CodeInvalidArgument || strings.Contains(string(res.Value), "leaked") {
		t.Fatalf("%+v %s", res, res.Value)
	}
	if list := eng.SavedWorkflows(); len(list.Workflows) != 0 || list.Dirs[0].Found || list.Dirs[1].Found {
		t.Fatalf("listed %+v", list)
	}
}
