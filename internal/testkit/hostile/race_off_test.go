//go:build !race

package hostile

// boundScale: without the race detector the headers' bounds hold as written.
const boundScale = 1
