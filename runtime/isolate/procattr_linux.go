package isolate

import "syscall"

// sysProcAttr makes the child die with the engine's process.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
