package engine

import (
	"encoding/json"
	"sync"

	"github.com/wfrun/wfrun/meta"
	"github.com/wfrun/wfrun/meta/calls"
	"github.com/wfrun/wfrun/sandbox"
)

// compiled is the outcome of checking one script source: the compiled
// script and its static meta, or the pre-check error. Immutable.
type compiled struct {
	script *sandbox.Script
	meta   json.RawMessage // nil when the script has no `export const meta`
	err    error

	// parsed is meta, parsed and valid, for the requests that bring no
	// meta of their own (most do): Start then skips parsing it again.
	// nil when meta is absent or invalid.
	parsed *parsedMeta
}

// parsedMeta is what meta.Parse returned for a valid meta.
type parsedMeta struct {
	meta     meta.WorkflowMeta
	warnings []string
}

// scriptCache keeps compiled scripts by name and source, so identical
// scripts are parsed and compiled once and share one goja.Program across
// runs. It is bounded; when full, an arbitrary entry is evicted.
type scriptCache struct {
	mu    sync.Mutex
	limit int
	m     map[cacheKey]*compiled
}

type cacheKey struct{ name, src string }

func (c *scriptCache) get(name, src string) *compiled {
	k := cacheKey{name, src}
	c.mu.Lock()
	if e, ok := c.m[k]; ok {
		c.mu.Unlock()
		return e
	}
	c.mu.Unlock()

	e := compile(name, src)

	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[cacheKey]*compiled)
	}
	if len(c.m) >= c.limit {
		for old := range c.m {
			delete(c.m, old)
			break
		}
	}
	c.m[k] = e
	return e
}

func compile(name, src string) *compiled {
	s, err := sandbox.Parse(name, src, calls.Callee)
	if err != nil {
		return &compiled{err: err}
	}
	lit := s.MetaLiteral()
	if lit == nil {
		return &compiled{script: s}
	}
	raw, err := meta.Extract(lit, s)
	if err != nil {
		return &compiled{err: err}
	}
	c := &compiled{script: s, meta: raw}
	if m, warnings, err := meta.Parse(raw); err == nil {
		c.parsed = &parsedMeta{meta: m, warnings: warnings}
	}
	return c
}
