//go:build race

package isolate

// raceEnabled: the race detector reserves terabytes of address space, so an
// address-space limit (RLIMIT_AS) would break the child at once.
const raceEnabled = true
