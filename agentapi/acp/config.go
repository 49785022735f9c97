package acp

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/internal/proc"
	"github.com/wfrun/wfrun/agentapi/workspace"
	"github.com/wfrun/wfrun/internal/strictjson"
)

// ProviderPrefix is put before an agent's name to make its provider's
// name: the agent "claude" is the provider "acp:claude".
const ProviderPrefix = "acp:"

// DefaultKillGrace is Agent.KillGrace when it is zero.
const DefaultKillGrace = 2 * time.Second

// Agent says how to start one ACP agent: a program that speaks the Agent
// Client Protocol on its standard input and output. Its JSON form is an
// entry of the config file (Parse), with the lowerCamelCase names given
// in each comment; unknown fields are refused.
type Agent struct {
	// Command is the program ("command"): an absolute path, a path relative
	// to wfrun's working directory, or a name looked up in the agent's PATH.
	Command string
	// Args are its arguments ("args").
	Args []string
	// Env adds variables to the agent's environment ("env").
	Env map[string]string
	// PassEnv names variables of wfrun's own environment that the agent
	// also gets when they are set, an API key for example ("passEnv").
	PassEnv []string
	// KillGrace is how long a cancelled agent has to end its turn after
	// session/cancel before its process group is killed, and how long an
	// agent whose work is done has to exit after its stdin is closed
	// ("killGrace", a Go duration; default 2s).
	KillGrace time.Duration
	// Capabilities are what the agent is declared to honour besides what
	// every ACP agent can do ("capabilities"): only model, effort and
	// depthLimit may be declared; see the package documentation.
	Capabilities agentapi.Capabilities
	// Sandbox runs the agent's process in the child's sandbox ("sandbox"):
	// its own namespaces under Landlock, writing only where the child's
	// workspace mode allows, network only with --sandbox-network (an agent
	// that calls its model's API needs it). Without it the agent runs with
	// wfrun's rights, and only its requests (files, terminals) are bounded.
	Sandbox bool
}

// Config configures one provider: an agent under a name, and the
// workspace its children work in.
type Config struct {
	// Name is the agent's name; the provider is ProviderPrefix+Name. It is
	// 1 to 64 letters, digits, '-', '_' or '.'.
	Name string
	// Agent says how to start it.
	Agent Agent
	// Workspace is the folder each child's session works in (its cwd) and
	// that fs requests are confined to, with the sandbox mode that answers
	// permission requests; nil means the current directory in
	// workspace-write mode.
	Workspace *workspace.Workspace
}

// File is the --acp-config file: agents by name.
//
//	{"agents": {"claude": {"command": "npx", "args": ["-y", "@zed-industries/claude-code-acp"],
//	                       "passEnv": ["ANTHROPIC_API_KEY"]}}}
type File struct {
	Agents map[string]Agent
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// checkName says what is wrong with an agent's name, or nil.
func checkName(name string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("the ACP agent name %q is not usable: a name is 1 to 64 letters, digits, '-', '_' or '.', and the provider is then called %sNAME", name, ProviderPrefix)
	}
	return nil
}

// agentJSON is the wire form of Agent.
type agentJSON struct {
	Command      string                `json:"command"`
	Args         []string              `json:"args"`
	Env          map[string]string     `json:"env"`
	PassEnv      []string              `json:"passEnv"`
	KillGrace    string                `json:"killGrace"`
	Capabilities agentapi.Capabilities `json:"capabilities"`
	Sandbox      bool                  `json:"sandbox"`
}

// Load reads and parses the config file at path.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the ACP config: %w", err)
	}
	f, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Parse parses and checks an ACP config file. Unknown fields, a name
// that is not usable and every mistake New would refuse are errors naming
// the agent and the field.
func Parse(data []byte) (*File, error) {
	var top struct {
		Agents map[string]json.RawMessage `json:"agents"`
	}
	if err := strictjson.Decode(data, &top); err != nil {
		return nil, decodeError("the ACP config", err, &top, `write {"agents": {"NAME": {"command": "...", "args": [...]}}}`)
	}
	if len(top.Agents) == 0 {
		return nil, errors.New(`the ACP config names no agents: write {"agents": {"NAME": {"command": "...", "args": [...]}}}`)
	}
	f := &File{Agents: make(map[string]Agent, len(top.Agents))}
	// Sorted, so that the first error reported does not depend on map order.
	names := make([]string, 0, len(top.Agents))
	for name := range top.Agents {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if err := checkName(name); err != nil {
			return nil, err
		}
		a, err := parseAgent(name, top.Agents[name])
		if err != nil {
			return nil, err
		}
		f.Agents[name] = a
	}
	return f, nil
}

func parseAgent(name string, data json.RawMessage) (Agent, error) {
	what := fmt.Sprintf("the ACP agent %q", name)
	var w agentJSON
	if err := strictjson.Decode(data, &w); err != nil {
		return Agent{}, decodeError(what, err, &w, `write {"command": "...", "args": [...]}`)
	}
	a := Agent{Command: w.Command, Args: w.Args, Env: w.Env, PassEnv: w.PassEnv, Capabilities: w.Capabilities, Sandbox: w.Sandbox}
	if w.KillGrace != "" {
		d, err := time.ParseDuration(w.KillGrace)
		if err != nil {
			return Agent{}, fmt.Errorf("%s has \"killGrace\": %q, which is not a duration: write a Go duration such as \"2s\"", what, w.KillGrace)
		}
		a.KillGrace = d
	}
	if err := a.check(what); err != nil {
		return Agent{}, err
	}
	return a, nil
}

// decodeError turns a decoding error into a sentence naming the field;
// what names the text, v is what it was decoded into, and example shows
// what to write.
func decodeError(what string, err error, v any, example string) error {
	p := strictjson.Explain(err, v)
	switch p.Kind {
	case strictjson.WrongRoot:
		return fmt.Errorf("%s must be a JSON object, not a %s: %s", what, p.Got, example)
	case strictjson.WrongField:
		return fmt.Errorf("%s has a %s as %q, where %s belongs", what, p.Got, p.Field, p.Want)
	case strictjson.Syntax:
		return fmt.Errorf("%s is not valid JSON (at byte %d: %v)", what, p.Offset, err)
	case strictjson.Truncated:
		return fmt.Errorf("%s is not valid JSON (it ends before its object is closed): %s", what, example)
	case strictjson.Empty:
		return fmt.Errorf("%s is empty: %s", what, example)
	case strictjson.Trailing:
		return fmt.Errorf("%s has text after its JSON object: write exactly one object", what)
	case strictjson.UnknownField:
		if what == "the ACP config" {
			return fmt.Errorf("the ACP config has an unknown field %q: the file holds one field, \"agents\"", p.Field)
		}
		return fmt.Errorf("%s has an unknown field %q: the fields are command, args, env, passEnv, killGrace and capabilities (model, effort, depthLimit)", what, p.Field)
	}
	return fmt.Errorf("%s cannot be read: %v", what, err)
}

// check reports the first problem of a as a sentence naming the field;
// what names the agent.
func (a *Agent) check(what string) error {
	if strings.TrimSpace(a.Command) == "" {
		return fmt.Errorf("%s has no \"command\": give the program that speaks ACP on its stdio, e.g. \"npx\" with \"args\": [\"-y\", \"@zed-industries/claude-code-acp\"]", what)
	}
	if strings.ContainsRune(a.Command, 0) || slices.ContainsFunc(a.Args, func(s string) bool { return strings.ContainsRune(s, 0) }) {
		return fmt.Errorf("%s has a NUL byte in its command or arguments", what)
	}
	for k := range a.Env {
		if !proc.ValidName(k) {
			return fmt.Errorf("%s has the name %q in \"env\": a variable name must be non-empty and contain no '=' or NUL", what, k)
		}
	}
	for _, k := range a.PassEnv {
		if !proc.ValidName(k) {
			return fmt.Errorf("%s has the name %q in \"passEnv\": a variable name must be non-empty and contain no '=' or NUL", what, k)
		}
	}
	if a.KillGrace < 0 {
		return fmt.Errorf("%s has \"killGrace\": %s: write a positive duration, or leave it out for %s", what, a.KillGrace, DefaultKillGrace)
	}
	c := a.Capabilities
	for _, bad := range []struct {
		on   bool
		name string
		why  string
	}{
		{c.OutputSchema, "outputSchema", "every ACP agent has it: the schema is asked for in the prompt and the answer validated"},
		{c.Isolation, "isolation", "every ACP agent has it: the session's cwd is the child's worktree"},
		{c.ToolFilter, "toolFilter", "ACP has no way to narrow an agent's tools"},
		{c.Persona, "persona", "ACP has no way to give an agent a persona"},
		{c.MaxTurns, "maxTurns", "ACP has no way to limit an agent's turns"},
	} {
		if bad.on {
			return fmt.Errorf("%s declares the capability %q, which cannot be declared: %s; remove it", what, bad.name, bad.why)
		}
	}
	return nil
}

// withDefaults returns a with its zero fields set to their defaults and
// its slices and maps copied.
func (a Agent) withDefaults() Agent {
	if a.KillGrace == 0 {
		a.KillGrace = DefaultKillGrace
	}
	a.Args = slices.Clone(a.Args)
	a.PassEnv = slices.Clone(a.PassEnv)
	env := make(map[string]string, len(a.Env))
	for k, v := range a.Env {
		env[k] = v
	}
	a.Env = env
	return a
}

// ParseAgentFlag reads the value of one --acp-agent flag, NAME=CMD ARGS…:
// the name, an equals sign, then the command line, split into words as a
// shell would split it without expanding anything (single and double
// quotes group, a backslash escapes the next character). The agent gets no
// variables beyond the inherited ones; use a config file for env and
// passEnv.
func ParseAgentFlag(s string) (string, Agent, error) {
	name, line, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsAny(name, " \t/") {
		return "", Agent{}, fmt.Errorf("--acp-agent %q has no name: write --acp-agent 'NAME=COMMAND ARGS…', for example --acp-agent 'claude=npx -y @zed-industries/claude-code-acp'", s)
	}
	if err := checkName(name); err != nil {
		return "", Agent{}, fmt.Errorf("--acp-agent: %w", err)
	}
	words, err := splitWords(line)
	if err != nil {
		return "", Agent{}, fmt.Errorf("--acp-agent %s: %w", name, err)
	}
	if len(words) == 0 {
		return "", Agent{}, fmt.Errorf("--acp-agent %s has no command after '=': write --acp-agent '%s=COMMAND ARGS…'", name, name)
	}
	a := Agent{Command: words[0], Args: words[1:]}
	if err := a.check(fmt.Sprintf("--acp-agent %s", name)); err != nil {
		return "", Agent{}, err
	}
	return name, a, nil
}

// splitWords splits a command line into words the way a POSIX shell does
// for quoting, and nothing else: no variables, globs or substitutions.
// Outside quotes a backslash escapes any character; inside double quotes
// only $, `, ", \ and a newline, as in the shell.
func splitWords(s string) ([]string, error) {
	var (
		words  []string
		cur    strings.Builder
		inWord bool
		quote  rune // 0, '\'' or '"'
	)
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch {
			case r == '"':
				quote = 0
			case r == '\\' && i+1 < len(rs) && strings.ContainsRune("$`\"\\\n", rs[i+1]):
				i++
				cur.WriteRune(rs[i])
			default:
				cur.WriteRune(r)
			}
		case r == '\\':
			if i+1 == len(rs) {
				return nil, errors.New("the command line ends with a lone backslash: remove it, or escape it as \\\\")
			}
			i++
			cur.WriteRune(rs[i])
			inWord = true
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("the command line has an unclosed %c quote: close it, or escape it with a backslash", quote)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
