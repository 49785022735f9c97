package fake

import (
	"encoding/json"
	"sync"
	"sync/atomic"

	"github.com/wfrun/wfrun/agentapi/fake/minimal"
	"github.com/wfrun/wfrun/agentapi/schema"
)

// maxAnswers bounds an answers cache. Past it the cache starts over: a
// script uses a handful of distinct schemas, so this only guards against
// unbounded growth.
const maxAnswers = 1024

// answers keeps the minimal value of each distinct schema text, so that a
// schema called many times is worked out once. The zero value is ready to
// use and safe for concurrent use.
type answers struct {
	m sync.Map // string(schema text) → *answer
	n atomic.Int64
}

// answer is one schema's minimal value, built by the first call that needs
// it; the calls that arrive meanwhile wait for it.
type answer struct {
	once  sync.Once
	value json.RawMessage
	err   error
}

// get returns a copy of the minimal value of s, which the caller may change.
func (a *answers) get(s *schema.Schema) (json.RawMessage, error) {
	key := string(s.Raw())
	v, ok := a.m.Load(key)
	if !ok {
		if a.n.Add(1) > maxAnswers {
			a.m.Clear()
			a.n.Store(1)
		}
		v, _ = a.m.LoadOrStore(key, new(answer))
	}
	ans := v.(*answer)
	ans.once.Do(func() { ans.value, ans.err = minimal.Value(s) })
	if ans.err != nil {
		return nil, ans.err
	}
	return append(json.RawMessage(nil), ans.value...), nil
}
