package memo

import (
	"sync"
	"sync/atomic"
)

// Max is the most keys a Map holds; one more makes it start over.
const Max = 1024

// Map builds each key's value once. The zero value is ready to use; a Map is
// safe for concurrent use and must not be copied after first use.
type Map[V any] struct {
	m sync.Map // key → func() (V, error), from sync.OnceValues
	n atomic.Int64
}

// Get returns key's value, calling build(key) to make it the first time key
// is asked for. Callers that ask for key while build runs wait for it and get
// its result. An error from build is kept like a value: build is meant to be
// deterministic, so asking again would fail again.
//
// build receives the key rather than capturing it, so that a caller can pass
// a plain function and a Get that finds its key allocates nothing for it.
func (c *Map[V]) Get(key string, build func(key string) (V, error)) (V, error) {
	f, ok := c.m.Load(key)
	if !ok {
		var loaded bool
		f, loaded = c.m.LoadOrStore(key, sync.OnceValues(func() (V, error) { return build(key) }))
		if !loaded && c.n.Add(1) > Max {
			c.m.Clear()
			c.m.Store(key, f)
			c.n.Store(1)
		}
	}
	return f.(func() (V, error))()
}

// Len reports how many keys the Map holds.
func (c *Map[V]) Len() int { return int(c.n.Load()) }
