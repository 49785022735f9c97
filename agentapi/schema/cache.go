package schema

import (
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
)

// maxCached bounds a Cache. Past it the cache starts over: a script uses a
// handful of distinct schemas, so this only guards against unbounded growth.
const maxCached = 1024

// Cache compiles each distinct schema text once. The zero value is ready to
// use and safe for concurrent use; providers keep one each.
type Cache struct {
	m sync.Map // string(schema text) → *Schema
	n atomic.Int64
}

// Get returns the compiled schema for raw, compiling it on first use.
func (c *Cache) Get(raw json.RawMessage) (*Schema, error) {
	key := string(raw)
	if v, ok := c.m.Load(key); ok {
		return v.(*Schema), nil
	}
	s, err := Compile(raw)
	if err != nil {
		return nil, err
	}
	if c.n.Add(1) > maxCached {
		c.m.Clear()
		c.n.Store(1)
	}
	v, _ := c.m.LoadOrStore(key, s)
	return v.(*Schema), nil
}

// StripFences removes a Markdown code fence around a JSON answer (```json …
// ```), which models add although they are asked not to, and surrounding
// space.
func StripFences(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "```") && strings.HasSuffix(s, "```") && len(s) >= 6 {
		s = strings.TrimSuffix(s[3:], "```")
		if i := strings.IndexByte(s, '\n'); i >= 0 && !strings.ContainsAny(s[:i], "{[\"") {
			s = s[i+1:] // the fence's info string, e.g. "json"
		}
	}
	return strings.TrimSpace(s)
}
