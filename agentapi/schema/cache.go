package schema

import (
	"encoding/json"
	"strings"

	"github.com/wfrun/wfrun/agentapi/internal/memo"
)

// Cache compiles each distinct schema text once; a text that does not
// compile keeps its error. The zero value is ready to use and safe for
// concurrent use; providers keep one each. It holds at most memo.Max texts,
// then starts over: a script uses a handful of distinct schemas, so this
// only guards against unbounded growth.
type Cache struct {
	m memo.Map[*Schema] // schema text → compiled schema
}

// Get returns the compiled schema for raw, compiling it on first use.
func (c *Cache) Get(raw json.RawMessage) (*Schema, error) {
	return c.m.Get(string(raw), compileText)
}

func compileText(text string) (*Schema, error) { return Compile(json.RawMessage(text)) }

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
