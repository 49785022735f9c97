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
	return &answer{schema: s, minimal: sync.OnceValues(func() (json.RawMessage, error) {
		if v := firstExample(s); v != nil {
			return v, nil
		}
		return minimal.Value(s)
	})}, nil
}

// firstExample returns the first of the schema's top-level examples that
// the schema accepts, or nil. An author who gives an example shows what a
// good answer looks like (the Ralph loop's handoff schema gives a finished
// one), and a rehearsal with it goes where a real run would; the smallest
// value often cannot (an empty list of evidence finishes no loop).
func firstExample(s *schema.Schema) json.RawMessage {
	var root struct {
		Examples []json.RawMessage `json:"examples"`
	}
	if json.Unmarshal(s.Raw(), &root) != nil {
		return nil
	}
	for _, ex := range root.Examples {
		if s.Validate(ex) == nil {
			return ex
		}
	}
	return nil
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
