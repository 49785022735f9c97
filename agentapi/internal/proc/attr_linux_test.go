package proc

import (
	"syscall"
	"testing"
)

func TestTheCallersAttributesAreKeptInAGroupOfItsOwn(t *testing.T) {
	base := &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Cloneflags: syscall.CLONE_NEWIPC, Pgid: 7}
	a := Job{SysProcAttr: base}.attr()
	if !a.Setpgid || a.Pgid != 0 || a.Pdeathsig != syscall.SIGKILL || a.Cloneflags != syscall.CLONE_NEWIPC {
		t.Fatalf("attr = %+v", a)
	}
	if base.Setpgid || base.Pgid != 7 {
		t.Fatalf("the caller's attributes were changed: %+v", base)
	}
	if a := (Job{}).attr(); !a.Setpgid || a.Cloneflags != 0 {
		t.Fatalf("attr of a plain job = %+v", a)
	}
}
