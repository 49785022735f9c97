package proc

import (
	"errors"
	"io"
	"os"
)

// StderrTail is how much of the end of stderr Execution.Stderr keeps.
const StderrTail = 4 << 10

// readCapped reads f until EOF into a buffer of at most max bytes and
// returns it with the number of bytes read in all. When more arrives it
// calls overflow; then, unless discard is set, it closes f (so that writers
// get EPIPE instead of filling the pipe) and returns what it kept, and with
// discard it goes on reading and counting without keeping. It is the only
// reader of f.
func readCapped(f *os.File, max int64, discard bool, overflow func()) ([]byte, int64) {
	var (
		buf   []byte
		total int64
		over  bool
	)
	chunk := make([]byte, 32<<10)
	for {
		n, err := f.Read(chunk)
		total += int64(n)
		if room := max - int64(len(buf)); int64(n) > room {
			buf = append(buf, chunk[:room]...)
			if !over {
				over = true
				overflow()
			}
			if !discard {
				f.Close()
				return buf, total
			}
		} else {
			buf = append(buf, chunk[:n]...)
		}
		if err != nil {
			return buf, total
		}
	}
}

// readTail reads f until EOF and returns its last StderrTail bytes.
func readTail(f *os.File) []byte {
	ring := make([]byte, 0, 2*StderrTail)
	chunk := make([]byte, 8<<10)
	for {
		n, err := f.Read(chunk)
		ring = append(ring, chunk[:n]...)
		if len(ring) > StderrTail {
			ring = append(ring[:0], ring[len(ring)-StderrTail:]...)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
				ring = append(ring, []byte("\n[reading stderr failed: "+err.Error()+"]")...)
			}
			return ring
		}
	}
}
