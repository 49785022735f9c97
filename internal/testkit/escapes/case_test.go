//go:build linux

package escapes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// This file is the catalogue's format: one YAML file per case
// (testdata/escapes/README.md describes it for the people who write them).

// The modes a case runs in: the sandbox, and whether every child gets a
// git worktree of its own.
const (
	modeReadOnly         = "read-only"
	modeWorkspaceWrite   = "workspace-write"
	modeReadOnlyWT       = "read-only+worktree"
	modeWorkspaceWriteWT = "workspace-write+worktree"
)

// The modes without an OS sandbox: only for cases whose attack is on
// wfrun's own handling of what a child wrote in the workspace (the git it
// runs, the journal it replays), which must hold with no sandbox at all.
const (
	modeDanger   = "danger-full-access"
	modeDangerWT = "danger-full-access+worktree"
)

// allModes are a case's modes when it names none.
var allModes = []string{modeReadOnly, modeWorkspaceWrite, modeReadOnlyWT, modeWorkspaceWriteWT}

// validModes are every mode a case may name.
var validModes = append(slices.Clone(allModes), modeDanger, modeDangerWT)

// sandboxOf is the --sandbox flag of a mode.
func sandboxOf(mode string) string { s, _, _ := strings.Cut(mode, "+"); return s }

// worktreeOf reports whether a mode isolates its children in worktrees.
func worktreeOf(mode string) bool { return strings.HasSuffix(mode, "+worktree") }

// escapeCase is one file of the catalogue.
type escapeCase struct {
	Name    string   `yaml:"name"`
	Attacks string   `yaml:"attacks"`
	Modes   []string `yaml:"modes"`
	// Pending names what fixes the case while it still escapes, in
	// PendingIn (default: every mode of the case).
	Pending   string   `yaml:"pending"`
	PendingIn []string `yaml:"pending_in"`

	Setup    setup   `yaml:"setup"`
	Children []child `yaml:"children"`
	Expect   expect  `yaml:"expect"`
	// AgentTimeout is wfrun's --agent-timeout (default 60s: a guard
	// against a hang, never reached by a child that follows its script).
	AgentTimeout duration `yaml:"agent_timeout"`
	// Timeout is wfrun's --timeout (default 120s); the test stops wfrun
	// and fails the case 60 s after it.
	Timeout duration `yaml:"timeout"`
}

// setup is what the case's folder holds before wfrun starts. Paths in
// files, symlinks and fifos are relative to the workspace; files are
// committed in its git repository, the others are not.
type setup struct {
	Files    map[string]string `yaml:"files"`
	Symlinks map[string]string `yaml:"symlinks"` // path → target (placeholders allowed)
	Fifos    []string          `yaml:"fifos"`
	// Outside holds the files of the folder next to the workspace (path
	// relative to it → content). Each gets mode 0640, owner 4242:4242
	// where the test runs as root, and the mtime 2001-02-03.
	Outside map[string]string `yaml:"outside"`
}

// child is one agent() call of the workflow and the turns the stub
// answers it with, one tool call (or a parallel set) a turn, then the
// final answer "done".
type child struct {
	// Isolation is "worktree", "none", or empty for the mode's.
	Isolation string     `yaml:"isolation"`
	Calls     []toolCall `yaml:"calls"`
}

// toolCall is one turn of a child's script: one tool call, or in Parallel
// several that the model asks for at once and the provider runs
// concurrently (a race between a command and a tool).
type toolCall struct {
	Tool      string         `yaml:"tool"`
	Arguments map[string]any `yaml:"arguments"`
	Parallel  []toolCall     `yaml:"parallel"`
}

// calls are the tool calls of the turn.
func (c toolCall) calls() []toolCall {
	if len(c.Parallel) > 0 {
		return c.Parallel
	}
	return []toolCall{c}
}

// expect lists the case's own checks, on top of those every case gets
// (everything beside the workspace unchanged, no secret in a tool result,
// no survivor, nothing reaching the canary, a result printed within the
// deadline).
type expect struct {
	// Absent globs must match nothing after the run.
	Absent []string `yaml:"absent"`
	// Lacks: no file matching the glob path may contain text (a missing
	// file lacks everything).
	Lacks []struct {
		Path string `yaml:"path"`
		Text string `yaml:"text"`
	} `yaml:"lacks"`
	// ResultsLack: no tool result may contain these strings.
	ResultsLack []string `yaml:"results_lack"`
	// Played: every child plays its script to the final answer, so no
	// tool call hung until the agent timeout. (A child that wfrun refuses
	// to start, say because its worktree cannot be made safely, holds
	// without playing; hence not a check of every case.)
	Played bool `yaml:"played"`
	// Resume: after the run, `wfrun resume RUNID` runs too, and its
	// result must not contain Lacks.
	Resume *struct {
		Lacks string `yaml:"lacks"`
	} `yaml:"resume"`
}

// duration is a Go duration in YAML ("3s").
type duration time.Duration

func (d *duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %q is not a duration such as 3s: %w", n.Line, n.Value, err)
	}
	*d = duration(v)
	return nil
}

// knownTools are the tools a child may be scripted to call.
var knownTools = []string{"Read", "Write", "Edit", "Glob", "Grep", "Bash"}

// loadCase reads and checks one case file.
func loadCase(path string) (escapeCase, error) {
	var c escapeCase
	data, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("%s: %w", path, err)
	}
	want := strings.TrimSuffix(filepath.Base(path), ".yaml")
	switch {
	case c.Name != want:
		return c, fmt.Errorf("%s: name %q must be the file's name, %q", path, c.Name, want)
	case c.Attacks == "":
		return c, fmt.Errorf("%s: say in attacks what the case attacks", path)
	case len(c.Children) == 0:
		return c, fmt.Errorf("%s: a case needs at least one child", path)
	case c.Expect.Resume != nil && c.Expect.Resume.Lacks == "":
		return c, fmt.Errorf("%s: expect.resume needs lacks", path)
	}
	if len(c.Modes) == 0 {
		c.Modes = allModes
	}
	for _, m := range append(slices.Clone(c.Modes), c.PendingIn...) {
		if !slices.Contains(validModes, m) {
			return c, fmt.Errorf("%s: unknown mode %q (one of %v)", path, m, validModes)
		}
		if !slices.Contains(c.Modes, m) {
			return c, fmt.Errorf("%s: pending_in names %q, which is not one of the case's modes %v", path, m, c.Modes)
		}
	}
	if len(c.PendingIn) > 0 && c.Pending == "" {
		return c, fmt.Errorf("%s: pending_in without pending: say what fixes the case", path)
	}
	for i, ch := range c.Children {
		if ch.Isolation != "" && ch.Isolation != "worktree" && ch.Isolation != "none" {
			return c, fmt.Errorf("%s: child %d: isolation %q is worktree, none or absent", path, i+1, ch.Isolation)
		}
		for j, turn := range ch.Calls {
			if turn.Tool != "" && len(turn.Parallel) > 0 {
				return c, fmt.Errorf("%s: child %d call %d: a turn is one tool call or parallel ones, not both", path, i+1, j+1)
			}
			for _, call := range turn.calls() {
				if !slices.Contains(knownTools, call.Tool) || len(call.Parallel) > 0 {
					return c, fmt.Errorf("%s: child %d call %d: unknown tool %q (one of %v)", path, i+1, j+1, call.Tool, knownTools)
				}
			}
		}
	}
	return c, nil
}

// pendingIn reports whether the case is pending in mode.
func (c escapeCase) pendingIn(mode string) bool {
	return c.Pending != "" && (len(c.PendingIn) == 0 || slices.Contains(c.PendingIn, mode))
}

// isolated reports whether child i runs in a worktree of its own in mode.
func (c escapeCase) isolated(i int, mode string) bool {
	switch c.Children[i].Isolation {
	case "worktree":
		return true
	case "none":
		return false
	}
	return worktreeOf(mode)
}

// expand replaces the placeholders {{WS}}, {{OUTSIDE}}, {{ROOT}},
// {{STATE}}, {{CANARY_HOST}}, {{CANARY_PORT}} and {{CANARY_UDP_PORT}} in s.
func (p places) expand(s string) string {
	return strings.NewReplacer("{{WS}}", p.ws, "{{OUTSIDE}}", p.outside, "{{ROOT}}", p.root, "{{STATE}}", p.state,
		"{{CANARY_HOST}}", p.canaryHost, "{{CANARY_PORT}}", p.canaryPort, "{{CANARY_UDP_PORT}}", p.canaryUDPPort).Replace(s)
}

// arguments is a call's arguments as the JSON string of a tool call, its
// string values expanded.
func (p places) arguments(call toolCall) string {
	args := map[string]any{}
	for k, v := range call.Arguments {
		if s, ok := v.(string); ok {
			v = p.expand(s)
		}
		args[k] = v
	}
	data, _ := json.Marshal(args)
	return string(data)
}

// places are one run's folders and addresses: root holds the workspace
// ws, the folder outside it and wfrun's home (HOME, and the script), which
// wfrun may write and a child may not; only ws and home may change.
type places struct {
	root, ws, outside, home               string
	canaryHost, canaryPort, canaryUDPPort string
	// state is wfrun's state folder (WFRUN_STATE_DIR), where the run's
	// journal key is kept. It is outside root, and outside /tmp, which a
	// sandboxed command sees as a private folder of its own: a command
	// could read it unless wfrun hides it.
	state string
}

// newPlaces are the folders of a run under root, and its state folder,
// removed when t ends.
func newPlaces(t *testing.T, root string) places {
	t.Helper()
	state, err := os.MkdirTemp(stateBase, "wfrun-escapes-state-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(state) })
	return places{root: root, ws: filepath.Join(root, "ws"), outside: filepath.Join(root, "outside"), home: filepath.Join(root, "home"), state: state}
}

// stateBase is where the runs' state folders are made: a folder every
// sandboxed command sees as the host has it.
const stateBase = "/var/tmp"
