package memo

import (
	"sync"
	"sync/atomic"
)

// Max is how many keys a Map holds before it starts over.
const Max = 1024

// Map builds each key's value once. The zero value is ready to use; a Map is
// safe for concurrent use and must not be copied after first use.
type Map[V any] struct {
	m sync.Map // key → *entry[V]
	n atomic.Int64
}

// entry is one key's value, built by the first Get for the key; the Gets that
// arrive meanwhile wait for it.
type entry[V any] struct {
	once sync.Once
	v    V
	err  error
}

// Get returns key's value, calling build to make it the first time key is
// asked for. Callers that ask for key while build runs wait for it and get
// its result. An error from build is kept like a value: build is meant to be
// deterministic, so asking again would fail again.
func (c *Map[V]) Get(key string, build func() (V, error)) (V, error) {
	e, ok := c.m.Load(key)
	if !ok {
		if c.n.Add(1) > Max {
			c.m.Clear()
			c.n.Store(1)
		}
		e, _ = c.m.LoadOrStore(key, new(entry[V]))
	}
	en := e.(*entry[V])
	en.once.Do(func() { en.v, en.err = build() })
	return en.v, en.err
}

// Len reports how many keys the Map has been asked to add since it last
// started over: the number of distinct keys when no two callers raced to add
// the same one.
func (c *Map[V]) Len() int { return int(c.n.Load()) }
