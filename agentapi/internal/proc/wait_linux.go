//go:build linux

package proc

import (
	"os/exec"
	"syscall"
	"unsafe"
)

// awaitExit blocks until cmd's process has exited, without reaping it
// (reaped is false; the caller reaps with cmd.Wait). The zombie keeps its
// process-group id reserved, so signals sent to the group before the reap
// cannot reach an unrelated group that reused the number.
func awaitExit(cmd *exec.Cmd) (reaped bool) {
	const (
		pPID    = 1
		wExited = 0x4
		wNoWait = 0x1000000
	)
	var info [128]byte // siginfo_t
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(cmd.Process.Pid),
			uintptr(unsafe.Pointer(&info[0])), wExited|wNoWait, 0, 0)
		if errno != syscall.EINTR {
			return false // exited (ECHILD cannot happen: only cmd.Wait reaps it)
		}
	}
}
