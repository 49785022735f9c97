package fake

import (
	"encoding/json"
	"sync"

	"github.com/wfrun/wfrun/agentapi/fake/minimal"
	"github.com/wfrun/wfrun/agentapi/internal/memo"
	"github.com/wfrun/wfrun/agentapi/schema"
)

// answers keeps, per distinct schema text, the compiled schema and, once a
// call needs it, the schema's minimal value, so that a schema called many
// times is compiled and worked out once. The zero value is ready to use and
// safe for concurrent use. It holds at most memo.Max texts, then starts over.
type answers struct {
	m memo.Map[*answer] // schema text → its answer
}

// answer is what the provider knows about one schema text.
type answer struct {
	schema  *schema.Schema
	minimal func() (json.RawMessage, error) // built on first use; an unsatisfiable schema keeps its error
}

// get returns the answer for the schema text raw, compiling it on first use.
func (a *answers) get(raw json.RawMessage) (*answer, error) {
	return a.m.Get(string(raw), newAnswer)
}

func newAnswer(text string) (*answer, error) {
	s, err := schema.Compile(json.RawMessage(text))
	if err != nil {
		return nil, err
	}
	return &answer{schema: s, minimal: sync.OnceValues(func() (json.RawMessage, error) { return minimal.Value(s) })}, nil
}

// value returns a copy of the schema's minimal value, which the caller may
// change.
func (a *answer) value() (json.RawMessage, error) {
	v, err := a.minimal()
	if err != nil {
		return nil, err
	}
	return append(json.RawMessage(nil), v...), nil
}
