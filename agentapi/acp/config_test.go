package acp

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi"
)

func TestAConfigFileNamesItsAgents(t *testing.T) {
	t.Parallel()
	f, err := Parse([]byte(`{"agents": {
		"claude": {"command": "npx", "args": ["-y", "@zed-industries/claude-code-acp"], "passEnv": ["ANTHROPIC_API_KEY"]},
		"gemini": {"command": "gemini", "args": ["--experimental-acp"], "env": {"GEMINI_MODEL": "gemini-2.5-pro"},
		           "killGrace": "5s", "capabilities": {"model": true, "effort": true, "depthLimit": true}}
	}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Agent{
		"claude": {Command: "npx", Args: []string{"-y", "@zed-industries/claude-code-acp"}, PassEnv: []string{"ANTHROPIC_API_KEY"}},
		"gemini": {Command: "gemini", Args: []string{"--experimental-acp"}, Env: map[string]string{"GEMINI_MODEL": "gemini-2.5-pro"},
			KillGrace: 5 * time.Second, Capabilities: agentapi.Capabilities{Model: true, Effort: true, DepthLimit: true}},
	}
	if !reflect.DeepEqual(f.Agents, want) {
		t.Fatalf("agents %+v\nwant   %+v", f.Agents, want)
	}
}

func TestAConfigFileWithAMistakeIsRefusedWithASentence(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, file, want string
	}{
		{"not JSON", `{"agents": `, "the ACP config is not valid JSON"},
		{"empty", ``, "the ACP config is empty"},
		{"an array", `[]`, "must be a JSON object"},
		{"no agents", `{"agents": {}}`, "names no agents"},
		{"unknown top field", `{"agents": {"a": {"command": "x"}}, "mcpServers": {}}`, `unknown field "mcpServers"`},
		{"unknown agent field", `{"agents": {"a": {"command": "x", "cwd": "/srv"}}}`, `the ACP agent "a" has an unknown field "cwd"`},
		{"no command", `{"agents": {"a": {"args": ["x"]}}}`, `the ACP agent "a" has no "command"`},
		{"args not strings", `{"agents": {"a": {"command": "x", "args": [1]}}}`, `"args", where an array of strings belongs`},
		{"bad name", `{"agents": {"my agent": {"command": "x"}}}`, `the ACP agent name "my agent" is not usable`},
		{"bad grace", `{"agents": {"a": {"command": "x", "killGrace": "soon"}}}`, `"killGrace": "soon", which is not a duration`},
		{"negative grace", `{"agents": {"a": {"command": "x", "killGrace": "-1s"}}}`, `write a positive duration`},
		{"bad env name", `{"agents": {"a": {"command": "x", "env": {"A=B": "c"}}}}`, `the name "A=B" in "env"`},
		{"toolFilter declared", `{"agents": {"a": {"command": "x", "capabilities": {"toolFilter": true}}}}`, `"toolFilter", which cannot be declared`},
		{"persona declared", `{"agents": {"a": {"command": "x", "capabilities": {"persona": true}}}}`, `ACP has no way to give an agent a persona`},
		{"unknown capability", `{"agents": {"a": {"command": "x", "capabilities": {"tools": true}}}}`, `unknown field "tools"`},
		{"text after", `{"agents": {"a": {"command": "x"}}} {}`, "text after its JSON object"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.file))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one with %q", c.name, err, c.want)
		}
	}
}

func TestLoadFileNamesTheFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "acp.json")
	if err := os.WriteFile(path, []byte(`{"agents": {"a": {}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.HasPrefix(err.Error(), path+": ") {
		t.Fatalf("error %v", err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); err == nil || !strings.Contains(err.Error(), "cannot read the ACP config") {
		t.Fatalf("error %v", err)
	}
}

func TestTheAgentFlagIsANameAndACommandLine(t *testing.T) {
	t.Parallel()
	cases := []struct {
		flag string
		name string
		argv []string
	}{
		{"claude=npx -y @zed-industries/claude-code-acp", "claude", []string{"npx", "-y", "@zed-industries/claude-code-acp"}},
		{" gemini = gemini   --experimental-acp ", "gemini", []string{"gemini", "--experimental-acp"}},
		{`local=./bin/agent --name "two words" 'it''s' a\ b`, "local", []string{"./bin/agent", "--name", "two words", "its", "a b"}},
		{`q=agent "a \"quoted\" \$word and \n kept"`, "q", []string{"agent", `a "quoted" $word and \n kept`}},
		{`e=agent '' ""`, "e", []string{"agent", "", ""}},
		{"eq=agent --opt=value", "eq", []string{"agent", "--opt=value"}},
	}
	for _, c := range cases {
		name, a, err := ParseAgentFlag(c.flag)
		if err != nil {
			t.Errorf("%q: %v", c.flag, err)
			continue
		}
		if got := append([]string{a.Command}, a.Args...); name != c.name || !reflect.DeepEqual(got, c.argv) {
			t.Errorf("%q: name %q argv %q, want %q %q", c.flag, name, got, c.name, c.argv)
		}
	}
}

func TestABadAgentFlagIsRefusedWithASentence(t *testing.T) {
	t.Parallel()
	cases := []struct{ flag, want string }{
		{"npx -y agent", "has no name"},
		{"=agent", "has no name"},
		{"./bin/x=agent", "has no name"},
		{"claude=", "has no command after '='"},
		{"claude=   ", "has no command after '='"},
		{"claude=agent 'open", "unclosed ' quote"},
		{`claude=agent "open`, `unclosed " quote`},
		{`claude=agent \`, "lone backslash"},
		{"cl@ude=agent", "is not usable"},
	}
	for _, c := range cases {
		_, _, err := ParseAgentFlag(c.flag)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one with %q", c.flag, err, c.want)
		}
	}
}

func TestNewRefusesWhatTheFileWouldRefuse(t *testing.T) {
	t.Parallel()
	if _, err := New(Config{Name: "x y", Agent: Agent{Command: "a"}}); err == nil {
		t.Error("New took a name with a space")
	}
	if _, err := New(Config{Name: "a", Agent: Agent{Command: "a", Capabilities: agentapi.Capabilities{MaxTurns: true}}}); err == nil {
		t.Error("New took a declared maxTurns")
	}
	if _, err := New(Config{Name: "a"}); err == nil {
		t.Error("New took an agent without a command")
	}
}
