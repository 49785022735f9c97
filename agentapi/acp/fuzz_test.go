package acp

import (
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/wfrun/wfrun/agentapi/workspace"
)

// FuzzParseAgentFlag feeds arbitrary --acp-agent values: never a panic, and
// whatever is accepted is a usable name and a command.
func FuzzParseAgentFlag(f *testing.F) {
	for _, s := range []string{
		"claude=npx -y @zed-industries/claude-code-acp",
		`local=./bin/agent --name "two words" 'it''s' a\ b`,
		`q=agent "a \"quoted\" \$word"`,
		"=x", "a=", "a='", `a="\`, "a=\\", "a=\x00",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, a, err := ParseAgentFlag(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error")
			}
			return
		}
		if checkName(name) != nil || strings.TrimSpace(a.Command) == "" || a.check("fuzz") != nil {
			t.Fatalf("accepted %q as name %q, agent %+v", s, name, a)
		}
	})
}

// FuzzParseFile feeds arbitrary config files: never a panic, and whatever
// is accepted passes the checks New makes.
func FuzzParseFile(f *testing.F) {
	for _, s := range []string{
		`{"agents": {"claude": {"command": "npx", "args": ["-y", "x"], "passEnv": ["K"], "killGrace": "3s"}}}`,
		`{"agents": {"g": {"command": "g", "capabilities": {"model": true}}}}`,
		`{"agents": {"a": {"command": "x", "cwd": "/"}}}`,
		`{"agents": {}}`, `[]`, `{`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(data)
		if err != nil {
			return
		}
		if len(file.Agents) == 0 {
			t.Fatal("accepted a file without agents")
		}
		for name, a := range file.Agents {
			if checkName(name) != nil || a.check(name) != nil {
				t.Fatalf("accepted agent %q: %+v", name, a)
			}
			if _, err := New(Config{Name: name, Agent: a, Workspace: nil}); err != nil {
				t.Fatalf("New refused what Parse accepted: %v", err)
			}
		}
	})
}

// FuzzDecide feeds arbitrary permission requests (a kind and a path, as an
// agent sends them): never a panic, never an allowed path outside the
// root, and never an allowed edit in read-only.
func FuzzDecide(f *testing.F) {
	for _, s := range []struct{ kind, path string }{
		{"edit", "notes.md"}, {"edit", "/etc/passwd"}, {"read", "../../x"}, {"execute", ""},
		{"move", "a/../../b"}, {"other", "\x00"}, {"", "~/x"},
	} {
		f.Add(s.kind, s.path)
	}
	root := f.TempDir()
	modes := []workspace.Mode{workspace.ReadOnly, workspace.WorkspaceWrite, workspace.DangerFullAccess}
	var wss []*workspace.Workspace
	for _, m := range modes {
		ws, err := workspace.New(workspace.Config{Root: root, Mode: m})
		if err != nil {
			f.Fatal(err)
		}
		wss = append(wss, ws)
	}
	f.Fuzz(func(t *testing.T, kind, path string) {
		for _, ws := range wss {
			var paths []string
			if path != "" {
				paths = []string{path}
			}
			d := decide(ws, sdk.ToolKind(kind), paths)
			if !d.allow {
				if d.reason == "" {
					t.Fatalf("%s %q refused without a reason", kind, path)
				}
				continue
			}
			for _, p := range paths {
				real, err := ws.Resolve(p)
				if err != nil || !strings.HasPrefix(real+"/", ws.Root()+"/") {
					t.Fatalf("%s %q allowed in %s although it resolves to %q (%v)", kind, path, ws.Mode(), real, err)
				}
			}
			switch sdk.ToolKind(kind) {
			case sdk.ToolKindEdit, sdk.ToolKindDelete, sdk.ToolKindMove:
				if !ws.Mode().CanWrite() {
					t.Fatalf("%s allowed in %s", kind, ws.Mode())
				}
			case sdk.ToolKindRead, sdk.ToolKindSearch, sdk.ToolKindThink, sdk.ToolKindFetch:
			default:
				if ws.Mode() != workspace.DangerFullAccess {
					t.Fatalf("%q allowed in %s", kind, ws.Mode())
				}
			}
		}
	})
}
