package acp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/workspace"
)

func TestPermissionRequestsAreAnsweredFromTheSandboxMode(t *testing.T) {
	t.Parallel()
	// Each request: what the agent asks, and the option kind wfrun picks in
	// read-only, workspace-write and danger-full-access.
	type want struct{ ro, ww, full string }
	requests := []struct {
		kind, path string // path relative to the root; "-" for none, "OUT" for outside
		want       want
	}{
		{"read", "notes.md", want{"allow_once", "allow_once", "allow_once"}},
		{"search", "-", want{"allow_once", "allow_once", "allow_once"}},
		{"think", "-", want{"allow_once", "allow_once", "allow_once"}},
		{"fetch", "-", want{"allow_once", "allow_once", "allow_once"}},
		{"read", "OUT", want{"reject_once", "reject_once", "reject_once"}},
		{"edit", "notes.md", want{"reject_once", "allow_once", "allow_once"}},
		{"delete", "notes.md", want{"reject_once", "allow_once", "allow_once"}},
		{"move", "new/notes.md", want{"reject_once", "allow_once", "allow_once"}},
		{"edit", "-", want{"reject_once", "reject_once", "reject_once"}},
		{"edit", "OUT", want{"reject_once", "reject_once", "reject_once"}},
		{"execute", "-", want{"reject_once", "reject_once", "allow_once"}},
		{"switch_mode", "-", want{"reject_once", "reject_once", "allow_once"}},
		{"other", "-", want{"reject_once", "reject_once", "allow_once"}},
	}
	outside := filepath.Join(t.TempDir(), "secret.txt")
	for _, mode := range workspace.Modes() {
		t.Run(string(mode), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, mode, false, Agent{})
			var script, expect []string
			refusals := 0
			for _, r := range requests {
				p := r.path
				switch p {
				case "-":
				case "OUT":
					p = outside
				default:
					p = f.path(p)
				}
				script = append(script, fmt.Sprintf("@permit %s %s", r.kind, p))
				w := map[workspace.Mode]string{workspace.ReadOnly: r.want.ro, workspace.WorkspaceWrite: r.want.ww, workspace.DangerFullAccess: r.want.full}[mode]
				expect = append(expect, fmt.Sprintf("permit %s %s: %s", r.kind, p, w))
				if strings.HasPrefix(w, "reject") {
					refusals++
				}
			}
			res := f.complete(t, strings.Join(append(script, "@report"), "\n"))
			if got := strings.Split(res.Text, "; "); strings.Join(got, "\n") != strings.Join(expect, "\n") {
				t.Fatalf("answers:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(expect, "\n"))
			}
			if !strings.Contains(res.Note, fmt.Sprintf("wfrun refused %d permission requests", refusals)) {
				t.Fatalf("note %q does not count the %d refusals", res.Note, refusals)
			}
		})
	}
}

func TestARefusalSaysWhy(t *testing.T) {
	t.Parallel()
	ws, err := workspace.New(workspace.Config{Root: t.TempDir(), Mode: workspace.WorkspaceWrite})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		kind sdk.ToolKind
		path string
		want string
	}{
		{sdk.ToolKindExecute, "", "--sandbox danger-full-access"},
		{sdk.ToolKindEdit, "", "names no file"},
		{sdk.ToolKindEdit, "/etc/passwd", "is outside the workspace"},
		{"", "", "a tool call without a kind"},
	}
	for _, c := range cases {
		var paths []string
		if c.path != "" {
			paths = []string{c.path}
		}
		d := decide(ws, c.kind, paths)
		if d.allow || !strings.Contains(d.reason, c.want) {
			t.Errorf("%s %q: %+v, want a refusal saying %q", c.kind, c.path, d, c.want)
		}
	}
}

func TestTheNarrowestOptionIsChosen(t *testing.T) {
	t.Parallel()
	opt := func(id string, kind sdk.PermissionOptionKind) sdk.PermissionOption {
		return sdk.PermissionOption{OptionId: sdk.PermissionOptionId(id), Kind: kind, Name: id}
	}
	cases := []struct {
		name  string
		opts  []sdk.PermissionOption
		allow bool
		want  string // the option id, or "cancelled"
	}{
		{"allow once before always", []sdk.PermissionOption{opt("a", sdk.PermissionOptionKindAllowAlways), opt("b", sdk.PermissionOptionKindAllowOnce)}, true, "b"},
		{"allow always when alone", []sdk.PermissionOption{opt("a", sdk.PermissionOptionKindAllowAlways), opt("r", sdk.PermissionOptionKindRejectOnce)}, true, "a"},
		{"reject once before always", []sdk.PermissionOption{opt("n", sdk.PermissionOptionKindRejectAlways), opt("r", sdk.PermissionOptionKindRejectOnce)}, false, "r"},
		{"reject always when alone", []sdk.PermissionOption{opt("y", sdk.PermissionOptionKindAllowOnce), opt("n", sdk.PermissionOptionKindRejectAlways)}, false, "n"},
		{"no reject option", []sdk.PermissionOption{opt("y", sdk.PermissionOptionKindAllowOnce)}, false, "cancelled"},
		{"no options", nil, true, "cancelled"},
	}
	for _, c := range cases {
		out := choose(c.opts, c.allow)
		got := "cancelled"
		if out.Selected != nil {
			got = string(out.Selected.OptionId)
		}
		if got != c.want || (out.Selected == nil) == (out.Cancelled == nil) {
			t.Errorf("%s: got %q (%+v), want %q", c.name, got, out, c.want)
		}
	}
}

func TestFileRequestsStayInsideTheWorkspace(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, false, Agent{})
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, f.path("link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.path("bin.dat"), []byte("a\x00b"), 0o644); err != nil {
		t.Fatal(err)
	}
	dotdot := f.ws.Root() + "/../" + filepath.Base(f.ws.Root()) + "/notes.md" // out and back in
	res := f.complete(t, strings.Join([]string{
		"@caps",
		"@read " + f.path("notes.md"),
		"@read notes.md 2 1",
		"@read " + outside,
		"@read " + f.path("link.txt"),
		"@read " + dotdot + " 3",
		"@read " + f.path("missing.md"),
		"@read " + f.path("bin.dat"),
		"@write " + f.path("out/new.txt") + " made\\nby the agent",
		"@write " + outside + " overwritten",
		"@write " + f.path("link.txt") + " through the link",
		"@report",
	}, "\n"))
	got := strings.Split(res.Text, "; ")
	want := []string{
		"fs.read=true fs.write=true terminal=true",
		"read " + f.path("notes.md") + ": first line\nsecond line\nthird line\n",
		"read notes.md: second line\n",
		"read " + outside + ": error: " + outside + " is outside the workspace " + f.ws.Root() + ": use a path inside it: the path is outside the workspace",
		"read " + f.path("link.txt") + ": error: " + f.path("link.txt") + " is outside the workspace " + f.ws.Root() + " (it resolves to " + outside + "): use a path inside it: the path is outside the workspace",
		"read " + dotdot + ": third line\n",
		"read " + f.path("missing.md") + ": error: " + f.path("missing.md") + " does not exist",
		"read " + f.path("bin.dat") + ": error: " + f.path("bin.dat") + " is a binary file, not a text file",
		"write " + f.path("out/new.txt") + ": ok",
		"write " + outside + ": error: " + outside + " is outside the workspace " + f.ws.Root() + ": use a path inside it: the path is outside the workspace",
		"write " + f.path("link.txt") + ": error: " + f.path("link.txt") + " is outside the workspace " + f.ws.Root() + " (it resolves to " + outside + "): use a path inside it: the path is outside the workspace",
	}
	if strings.Join(got, "\n--\n") != strings.Join(want, "\n--\n") {
		t.Fatalf("answers:\n%s\n\nwant:\n%s", strings.Join(got, "\n--\n"), strings.Join(want, "\n--\n"))
	}
	if data, _ := os.ReadFile(f.path("out/new.txt")); string(data) != "made\nby the agent" {
		t.Fatalf("the write made %q", data)
	}
	if data, _ := os.ReadFile(outside); string(data) != "secret" {
		t.Fatalf("a file outside the workspace was written: %q", data)
	}
}

func TestAReadOnlyRunServesReadsAndRefusesWrites(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.ReadOnly, false, Agent{})
	res := f.complete(t, "@caps\n@read notes.md 1 1\n@write notes.md replaced\n@report")
	want := "fs.read=true fs.write=false terminal=true; read notes.md: first line\n; write notes.md: error: the run's sandbox mode is read-only, so the agent may not write files"
	if res.Text != want {
		t.Fatalf("answer %q\nwant   %q", res.Text, want)
	}
	if data, _ := os.ReadFile(f.path("notes.md")); !strings.HasPrefix(string(data), "first line") {
		t.Fatalf("a read-only child wrote: %q", data)
	}
}

func TestTerminalsRunCommandsInsideTheSandbox(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, false, Agent{})
	outside := filepath.Join(t.TempDir(), "escape.txt")
	res := f.complete(t, strings.Join([]string{
		"@exec echo hello from a terminal",
		"@exec touch " + f.path("made-by-terminal"),
		"@exec touch " + outside,
		"@exec false",
		"@exec no-such-program-anywhere",
		"@report",
	}, "\n"))
	got := strings.Split(res.Text, "; ")
	if len(got) != 5 {
		t.Fatalf("answers %q", res.Text)
	}
	if got[0] != "exec echo: exit 0: hello from a terminal" || got[1] != "exec touch: exit 0: " ||
		!strings.HasPrefix(got[2], "exec touch: exit 1: ") || !strings.Contains(got[2], "No such file") || // the host's /tmp is replaced by a private one

		got[3] != "exec false: exit 1: " || !strings.Contains(got[4], "cannot run \"no-such-program-anywhere\"") {
		t.Fatalf("answers:\n%s", strings.Join(got, "\n"))
	}
	if _, err := os.Stat(f.path("made-by-terminal")); err != nil {
		t.Fatalf("a terminal could not write inside the workspace: %v", err)
	}
	if _, err := os.Stat(outside); !os.IsNotExist(err) {
		t.Fatalf("a terminal wrote outside the workspace: %v", err)
	}
}

func TestTheSessionModelIsSetThroughItsConfigOption(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, false, Agent{Args: []string{"-models", "claude-haiku-4-5,claude-sonnet-4-5"},
		Capabilities: agentapi.Capabilities{Model: true}})
	cases := []struct {
		model     string
		defaulted bool
		answer    string
		note      string
		code      string
	}{
		{"", false, "model claude-haiku-4-5", "", ""},
		{"sonnet", false, "model claude-sonnet-4-5", "", ""},
		{"claude-sonnet-4-5", false, "model claude-sonnet-4-5", "", ""},
		{"gpt-5", true, "model claude-haiku-4-5", `none of them is "gpt-5", so the agent used its own model "claude-haiku-4-5"`, ""},
		{"gpt-5", false, "", "", "UNSUPPORTED_OPTION"},
		{"claude", false, "", "", "UNSUPPORTED_OPTION"}, // ambiguous
	}
	for _, c := range cases {
		res, err := f.run(t, context.Background(), agentapi.Request{Prompt: "@model\n@usage 1 1\n@report", Model: c.model, ModelDefaulted: c.defaulted})
		switch {
		case c.code != "":
			if err == nil || !strings.HasPrefix(err.Error(), c.code) || !strings.Contains(err.Error(), `"claude-haiku-4-5", "claude-sonnet-4-5"`) {
				t.Errorf("model %q: result %+v, err %v, want %s naming the values", c.model, res, err, c.code)
			}
		case err != nil || res.Text != c.answer || !strings.Contains(res.Note, c.note):
			t.Errorf("model %q: result %+v, err %v, want %q with note %q", c.model, res, err, c.answer, c.note)
		}
	}
}

func TestAModelTheAgentCannotSetIsRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, false, Agent{Capabilities: agentapi.Capabilities{Model: true}})
	_, err := f.run(t, context.Background(), agentapi.Request{Prompt: "@say hi", Model: "opus"})
	if err == nil || !strings.Contains(err.Error(), "offers no model option") || !strings.Contains(err.Error(), `"model": false`) {
		t.Fatalf("err %v", err)
	}
	res, err := f.run(t, context.Background(), agentapi.Request{Prompt: "@say hi", Model: "opus", ModelDefaulted: true})
	if err != nil || res.Status != agentapi.StatusCompleted || !strings.Contains(res.Note, "offers no model option") {
		t.Fatalf("a default model the agent cannot take is a note: %+v, %v", res, err)
	}
}
