package agentapi

import (
	"fmt"
	"sort"
	"sync"
)

// Registry maps provider names to providers. The zero value is empty and
// ready to use; it is safe for concurrent use. Each engine has its own.
type Registry struct {
	mu sync.RWMutex
	m  map[string]Provider
}

// Register adds p under p.Name(). It fails if the name is empty or taken.
func (r *Registry) Register(p Provider) error {
	name := p.Name()
	if name == "" {
		return fmt.Errorf("agentapi: provider has an empty name")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.m[name]; ok {
		return fmt.Errorf("agentapi: a provider named %q is already registered", name)
	}
	if r.m == nil {
		r.m = make(map[string]Provider)
	}
	r.m[name] = p
	return nil
}

// Lookup returns the provider registered under name.
func (r *Registry) Lookup(name string) (Provider, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	p, ok := r.m[name]
	return p, ok
}

// Names returns the registered names, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.m))
	for n := range r.m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
