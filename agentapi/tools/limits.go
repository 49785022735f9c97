package tools

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// The bounds of every result. Each says, when it cut something, what it
// cut and how to get the rest.
const (
	readLines     = 2000      // lines Read shows without a limit
	maxLineRunes  = 2000      // characters of one line Read shows
	maxReadBytes  = 100 << 10 // bytes of one Read result
	maxOutput     = 30000     // bytes of one Bash, Grep or Glob result
	globResults   = 100       // paths one Glob returns
	grepEntries   = 250       // entries one Grep returns without head_limit
	grepLineRunes = 500       // characters of one matching line Grep shows
	grepFileBytes = 16 << 20  // files larger than this are not searched
	maxWriteBytes = 16 << 20  // the largest content Write and Edit accept
	binarySniff   = 8000      // bytes looked at to tell a binary file
	maxIgnoreFile = 1 << 20   // a larger ignore file (.gitignore, info/exclude) is not read

	bashTimeout    = 2 * time.Minute  // a Bash command's default timeout
	bashMaxTimeout = 10 * time.Minute // the largest timeout a call may ask for
	bashGrace      = 2 * time.Second  // between SIGTERM and SIGKILL
)

// cutRunes shortens s to at most n characters, marking the cut.
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for k := range s {
		if n == 0 {
			i = k
			break
		}
		n--
	}
	return s[:i] + "… [line cut]"
}

// capped collects lines up to maxOutput bytes and remembers what it
// dropped.
type capped struct {
	b       strings.Builder
	max     int
	dropped int // lines not added
}

func newCapped(max int) *capped { return &capped{max: max} }

// add appends one line; false once the cap is reached.
func (c *capped) add(line string) bool {
	if c.dropped > 0 || c.b.Len()+len(line)+1 > c.max {
		c.dropped++
		return false
	}
	c.b.WriteString(line)
	c.b.WriteByte('\n')
	return true
}

// String is the lines, with a note when some were dropped.
func (c *capped) String() string {
	s := strings.TrimSuffix(c.b.String(), "\n")
	if c.dropped > 0 {
		s += fmt.Sprintf("\n[output truncated at %d bytes: %d more lines not shown; narrow the search]", c.max, c.dropped)
	}
	return s
}
