//go:build race

package hostile

// boundScale stretches each script's time bound under the race detector,
// which runs goja several times slower: the bounds in the headers are what
// an ordinary build must meet, and a hang still overruns the stretched one.
const boundScale = 3
