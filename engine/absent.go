package engine

import (
	"fmt"
	"strings"

	"github.com/wfrun/wfrun/internal/wferr"
	"github.com/wfrun/wfrun/sandbox"
)

// checkAbsent refuses, before anything runs, a script that uses what a
// workflow does not have (Date.now(), new Date() without arguments,
// Math.random(), require, the timers): the use would throw when its line is
// reached, after the agents before it were paid for. The error is
// SCRIPT_ERROR, the code the run would end with, at the first use's line and
// column, and names every other use with its line, so that one call shows
// every mistake.
func checkAbsent(s *sandbox.Script) error {
	uses := s.AbsentUses()
	if len(uses) == 0 {
		return nil
	}
	first := uses[0]
	var b strings.Builder
	fmt.Fprintf(&b, "%s", first.Why)
	if len(uses) > 1 {
		others := make([]string, 0, len(uses)-1)
		for _, u := range uses[1:] {
			others = append(others, fmt.Sprintf("%s at line %d, column %d", u.What, u.Line, u.Column))
		}
		fmt.Fprintf(&b, "; the script also uses %s", strings.Join(others, ", "))
	}
	return wferr.At(wferr.ScriptError, first.Line, first.Column, "%s", b.String())
}
