//go:build unix && !linux

package proc

import "os/exec"

// awaitExit waits for cmd's process and reaps it (reaped is true). Without
// Linux's waitid(WNOWAIT) the zombie cannot be kept, so the SIGKILL sent to
// the group afterwards has a small window in which the group id could have
// been reused by an unrelated group; see the package documentation.
func awaitExit(cmd *exec.Cmd) (reaped bool) {
	_ = cmd.Wait() // the exit status is in cmd.ProcessState
	return true
}
