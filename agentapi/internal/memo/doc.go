// Package memo keeps one value per key, built once by the first caller that
// asks for it, in a map of bounded size. It serves the providers' caches of
// compiled schemas (agentapi/schema.Cache) and the fake provider's cache of
// compiled schemas with their minimal answers, which differ only in what
// they build; it is internal to agentapi because nothing outside the
// providers needs it.
//
// A Map never evicts one key at a time: when a new key would be one past Max
// it forgets the others and starts over with that one. Its callers see a handful of distinct keys (the
// schemas of the scripts they run), so the bound only guards against
// unbounded growth, and starting over costs no bookkeeping on the hot path.
//
// The package imports only the standard library. It starts no goroutines and
// holds no package-level state.
package memo
