package command

import (
	"errors"
	"io"
	"os"
)

// stderrTail is how much of the end of stderr a failed child's error shows.
const stderrTail = 4 << 10

// readCapped reads f until EOF into a buffer of at most max bytes. When more
// arrives it calls overflow, closes f (so that writers get EPIPE instead of
// filling the pipe) and returns what it kept. It is the only reader of f.
func readCapped(f *os.File, max int64, overflow func()) []byte {
	var buf []byte
	chunk := make([]byte, 32<<10)
	for {
		n, err := f.Read(chunk)
		if int64(len(buf)+n) > max {
			buf = append(buf, chunk[:max-int64(len(buf))]...)
			overflow()
			f.Close()
			return buf
		}
		buf = append(buf, chunk[:n]...)
		if err != nil {
			return buf
		}
	}
}

// readTail reads f until EOF and returns its last stderrTail bytes.
func readTail(f *os.File) []byte {
	ring := make([]byte, 0, 2*stderrTail)
	chunk := make([]byte, 8<<10)
	for {
		n, err := f.Read(chunk)
		ring = append(ring, chunk[:n]...)
		if len(ring) > stderrTail {
			ring = append(ring[:0], ring[len(ring)-stderrTail:]...)
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
				ring = append(ring, []byte("\n[reading stderr failed: "+err.Error()+"]")...)
			}
			return ring
		}
	}
}
