package meta

import (
	"encoding/json"
	"slices"
	"sync"

	"github.com/invopop/jsonschema"
)

// Schema returns the JSON Schema (draft 2020-12) of WorkflowMeta, for tools
// that take meta as data. It is generated once from the Go type, with
// descriptions and without references, and allows additional properties
// since unknown fields are only warnings. Each call returns a fresh copy.
func Schema() json.RawMessage {
	return slices.Clone(schemaJSON())
}

var schemaJSON = sync.OnceValue(func() []byte {
	r := jsonschema.Reflector{
		AllowAdditionalProperties: true,
		DoNotReference:            true,
		ExpandedStruct:            true,
	}
	s := r.Reflect(&WorkflowMeta{})
	s.Title = "WorkflowMeta"
	s.Description = "Describes a workflow script: given as the request's meta, or as `export const meta = {…}`, a pure literal, at the top of the script. Unknown fields are ignored with a warning."
	if phases, ok := s.Properties.Get("phases"); ok && phases.Items != nil {
		phases.Items.Description = "One phase of the workflow."
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		panic("meta: cannot marshal the schema of WorkflowMeta: " + err.Error())
	}
	return b
})
