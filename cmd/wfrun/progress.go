package main

import "github.com/wfrun/wfrun/engine/progress"

// progressLine starts the live progress line (engine/progress) on e's
// stderr when that is a terminal which --events - does not write to;
// otherwise it returns nil, on which every method does nothing.
func progressLine(e env, s *sinks) *progress.Line {
	if !progress.IsTerminal(e.stderr) || (s != nil && s.toStderr) {
		return nil
	}
	return progress.Start(e.stderr)
}
