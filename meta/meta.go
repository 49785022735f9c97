package meta

import (
	"github.com/dop251/goja/file"
)

// Phase is one entry of meta.phases: a named stage of the workflow that
// phase(title) calls and agent({phase}) options refer to.
type Phase struct {
	Title  string `json:"title" jsonschema:"minLength=1,pattern=\\S" jsonschema_description:"Name of the phase, as passed to phase(title). Required and not blank."`
	Detail string `json:"detail,omitempty" jsonschema_description:"What happens in this phase."`
	Model  string `json:"model,omitempty" jsonschema:"minLength=1" jsonschema_description:"Default model for the agents of this phase."`
}

// WorkflowMeta describes a workflow (docs/script-api.md, "Meta"). The zero value is not
// valid: Name and Description are required. Values returned by Parse are
// valid.
type WorkflowMeta struct {
	Name        string  `json:"name" jsonschema:"minLength=1,maxLength=64,pattern=^[A-Za-z0-9._-]+$" jsonschema_description:"Name of the workflow: 1 to 64 letters, digits, '-', '_' or '.'."`
	Description string  `json:"description" jsonschema:"minLength=1,pattern=\\S" jsonschema_description:"What the workflow does, in a sentence. Required and not blank."`
	WhenToUse   string  `json:"whenToUse,omitempty" jsonschema_description:"When a caller should choose this workflow."`
	Model       string  `json:"model,omitempty" jsonschema:"minLength=1" jsonschema_description:"Default model for this run's agents."`
	Phases      []Phase `json:"phases,omitempty" jsonschema_description:"The stages of the workflow, in order."`
}

// Source is the script a literal was parsed from. Package sandbox's Script
// is one, since only it knows how its wrapper shifted the source: Position
// maps a goja file.Idx of the parsed program to the user's 1-based line and
// column, and Text returns the user's source between two of them, which
// messages quote.
type Source interface {
	Position(idx file.Idx) (line, col int)
	Text(from, to file.Idx) string
}
