package fake

import (
	"encoding/json"

	"github.com/wfrun/wfrun/agentapi/fake/minimal"
	"github.com/wfrun/wfrun/agentapi/internal/memo"
	"github.com/wfrun/wfrun/agentapi/schema"
)

// answers keeps the minimal value of each distinct schema text, so that a
// schema called many times is worked out once; an unsatisfiable schema keeps
// its error. The zero value is ready to use and safe for concurrent use. It
// holds at most memo.Max texts, then starts over.
type answers struct {
	m memo.Map[json.RawMessage] // schema text → minimal value
}

// get returns a copy of the minimal value of s, which the caller may change.
func (a *answers) get(s *schema.Schema) (json.RawMessage, error) {
	v, err := a.m.Get(string(s.Raw()), func() (json.RawMessage, error) { return minimal.Value(s) })
	if err != nil {
		return nil, err
	}
	return append(json.RawMessage(nil), v...), nil
}
