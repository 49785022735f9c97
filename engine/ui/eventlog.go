package ui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/wfrun/wfrun/engine"
)

// maxEventLog is how much of a run's events.jsonl a page reads: far more
// than a run of a thousand agents writes.
const maxEventLog = 64 << 20

// eventLog is what a page reads of a run's events.jsonl.
type eventLog struct {
	Events []engine.Event
	// End is the offset just past the last whole line: where a live page
	// follows the file from.
	End int64
	// Skipped counts lines that are not events (a file changed by hand).
	Skipped int
	// Truncated says the file is larger than a page reads.
	Truncated bool
}

// readEventLog reads the whole lines of path. A last line without its
// newline is being written: it is left for the next read. A missing file
// is an empty log: a run folder gets it when the run starts.
func readEventLog(path string) (eventLog, error) {
	var log eventLog
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return log, nil
	}
	if err != nil {
		return log, fmt.Errorf("cannot read the run's events: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxEventLog+1))
	if err != nil {
		return log, fmt.Errorf("cannot read the run's events: %w", err)
	}
	if len(data) > maxEventLog {
		data, log.Truncated = data[:maxEventLog], true
	}
	for rest := data; ; {
		line, after, complete := bytes.Cut(rest, []byte("\n"))
		if !complete {
			break
		}
		rest = after
		log.End += int64(len(line)) + 1
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var ev engine.Event
		if json.Unmarshal(line, &ev) != nil || ev.Type == "" {
			log.Skipped++
			continue
		}
		log.Events = append(log.Events, ev)
	}
	return log, nil
}

// lastAttempt returns the events of the last attempt: a run continued in
// place appends a new run.start to the same file.
func lastAttempt(events []engine.Event) []engine.Event {
	for i := len(events) - 1; i >= 0; i-- {
		if events[i].Type == engine.EventRunStart {
			return events[i:]
		}
	}
	return events
}
