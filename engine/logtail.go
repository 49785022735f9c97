package engine

import (
	"strings"
	"unicode/utf8"
)

// The bounds of a run's log tail (RunInfo.Logs): what a caller that follows
// a run — workflow_status, workflow_wait, the workflow tool's result — is
// shown of the lines its script logged.
const (
	MaxLogLines    = 20   // the most lines kept
	MaxLogBytes    = 2048 // the most bytes kept, all lines together
	maxLogLineSize = 400  // a longer line is cut, with "…"
)

// LogTail keeps the last lines a run logged (log(), console.*), within
// MaxLogLines and MaxLogBytes: a new line pushes the oldest out. A message
// of several lines counts as that many lines. The zero value is empty and
// ready; a LogTail is not safe for concurrent use.
type LogTail struct {
	lines []string
	size  int
}

// Add appends the lines of msg.
func (t *LogTail) Add(msg string) {
	for _, line := range strings.Split(strings.TrimRight(msg, "\n"), "\n") {
		line = strings.TrimRight(line, "\r")
		if len(line) > maxLogLineSize {
			n := maxLogLineSize - len("…")
			for n > 0 && !utf8.RuneStart(line[n]) {
				n--
			}
			line = line[:n] + "…"
		}
		t.lines = append(t.lines, line)
		t.size += len(line)
		for len(t.lines) > MaxLogLines || t.size > MaxLogBytes {
			t.size -= len(t.lines[0])
			t.lines = t.lines[1:]
		}
	}
}

// Lines returns a copy of the lines kept, oldest first; nil when none.
func (t *LogTail) Lines() []string {
	if len(t.lines) == 0 {
		return nil
	}
	return append([]string(nil), t.lines...)
}

// Last returns the latest line, or "".
func (t *LogTail) Last() string {
	if len(t.lines) == 0 {
		return ""
	}
	return t.lines[len(t.lines)-1]
}
