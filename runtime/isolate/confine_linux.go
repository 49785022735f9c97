package isolate

import (
	"fmt"

	"github.com/landlock-lsm/go-landlock/landlock"
)

// confine takes the child's file system and network away: a workflow's VM
// has no use for either (the script has no I/O, and everything it needs
// comes over the pipe). It uses the strictest Landlock configuration the
// kernel has; without Landlock it does nothing, and the run goes on with
// the other limits (the sandbox, the memory limit).
func confine() error {
	if err := landlock.V7.BestEffort().Restrict(); err != nil {
		return fmt.Errorf("the child process could not take away its own file and network access (%w); it runs without that restriction", err)
	}
	return nil
}
