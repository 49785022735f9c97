//go:build !race

package isolate

const raceEnabled = false
