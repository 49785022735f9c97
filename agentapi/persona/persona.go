package persona

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wfrun/wfrun/agentapi/modelmap"
)

// Persona is one sub-agent definition.
type Persona struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`

	// Tools are the tool names (or patterns: see NarrowTools) the persona
	// may use; nil means every tool available, an empty list none.
	Tools []string `json:"tools"`
	// DisallowedTools are taken away from Tools.
	DisallowedTools []string `json:"disallowedTools,omitempty"`

	// Model is the persona's model as written: an alias (opus, sonnet,
	// haiku), inherit, a full model id, or "" (inherit).
	Model  string          `json:"model,omitempty"`
	Effort modelmap.Effort `json:"effort,omitempty"`
	// MaxTurns is the persona's turn limit; 0 means the provider's.
	MaxTurns int `json:"maxTurns,omitempty"`

	// PermissionMode is the file's permissionMode, as written.
	PermissionMode PermissionMode `json:"permissionMode,omitempty"`
	// ReadOnly says that a child with this persona runs in the read-only
	// sandbox mode whatever the run's mode is. When false the run's mode
	// stands: a persona narrows the mode, never widens it.
	ReadOnly bool `json:"readOnly,omitempty"`

	// Prompt is the body of the file: the child's system prompt, placed
	// under the provider's worker framing.
	Prompt string `json:"-"`

	// Source is the file the persona was read from, or "built-in".
	Source string `json:"source"`

	// Warnings are what loading the file got past: front matter that is
	// not valid YAML but was read line by line (see Parse). The persona
	// loaded; the file should still be fixed.
	Warnings []*LoadError `json:"warnings,omitempty"`
}

// BuiltInSource is the Source of a built-in persona.
const BuiltInSource = "built-in"

// clone returns p with lists of its own, so that a caller cannot change
// the Set's copy.
func (p Persona) clone() Persona {
	p.Tools = slices.Clone(p.Tools)
	p.DisallowedTools = slices.Clone(p.DisallowedTools)
	p.Warnings = slices.Clone(p.Warnings)
	return p
}

// BuiltIn reports whether p is one of the built-in personas.
func (p Persona) BuiltIn() bool { return p.Source == BuiltInSource }

// PermissionMode is a Claude Code permission mode, as persona files write
// it in permissionMode.
type PermissionMode string

// Claude Code's permission modes, and what each means for a wfrun child.
// Only plan narrows the sandbox mode (to read-only); the others describe
// how a person is asked for approval, and wfrun has nobody to ask, so they
// leave the run's mode as it is. None of them widens it: bypassPermissions
// does not turn workspace-write into danger-full-access.
const (
	PermissionDefault     PermissionMode = "default"           // the run's mode
	PermissionAcceptEdits PermissionMode = "acceptEdits"       // the run's mode
	PermissionAuto        PermissionMode = "auto"              // the run's mode
	PermissionDontAsk     PermissionMode = "dontAsk"           // the run's mode
	PermissionBypass      PermissionMode = "bypassPermissions" // the run's mode: never widened
	PermissionPlan        PermissionMode = "plan"              // read-only
)

// permissionModes lists the modes in the order error messages name them.
func permissionModes() []PermissionMode {
	return []PermissionMode{PermissionDefault, PermissionAcceptEdits, PermissionAuto,
		PermissionDontAsk, PermissionBypass, PermissionPlan}
}

// parsePermissionMode reads a permissionMode value; Claude Code's spelling
// is camelCase, but a different case is accepted.
func parsePermissionMode(s string) (PermissionMode, error) {
	modes := permissionModes()
	for _, m := range modes {
		if strings.EqualFold(s, string(m)) {
			return m, nil
		}
	}
	names := make([]string, len(modes))
	for i, m := range modes {
		names[i] = string(m)
	}
	return "", fmt.Errorf("permissionMode %q is not one of Claude Code's modes: use %s", s, strings.Join(names, ", "))
}

// ReadOnly reports whether the mode restricts a child to reading.
func (m PermissionMode) ReadOnly() bool { return m == PermissionPlan }
