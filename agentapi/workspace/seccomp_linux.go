package workspace

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Under Landlock alone (Config.LandlockOnly, on a machine without
// namespaces) a seccomp filter takes back some of what the namespaces
// would have given: no new session or process group (so whatever the
// command leaves stays in the group that is killed when it ends), no
// ptrace and no reading of other processes' memory, and in ReadOnly no
// change of metadata (modes, owners, times, extended attributes). A
// refused call fails with EPERM; a call of another ABI (32-bit programs)
// kills the process, since the filter knows only the native numbers.

// seccompDenied are the system calls refused in every sandboxed mode.
var seccompDenied = []uintptr{unix.SYS_SETSID, unix.SYS_SETPGID, unix.SYS_PTRACE,
	unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV}

// seccompMetadata are the system calls that change metadata, refused in
// ReadOnly (seccompLegacyMetadata adds the architecture's older ones).
var seccompMetadata = []uintptr{unix.SYS_FCHMODAT, unix.SYS_FCHMODAT2, unix.SYS_FCHMOD, unix.SYS_FCHOWNAT,
	unix.SYS_FCHOWN, unix.SYS_UTIMENSAT, unix.SYS_SETXATTR, unix.SYS_LSETXATTR, unix.SYS_FSETXATTR,
	unix.SYS_REMOVEXATTR, unix.SYS_LREMOVEXATTR, unix.SYS_FREMOVEXATTR, unix.SYS_SETXATTRAT, unix.SYS_REMOVEXATTRAT}

// seccompFilter is the BPF program: other ABIs are killed, x32 calls (on
// amd64) and the denied numbers get EPERM, everything else is allowed.
func seccompFilter(arch uint32, x32 bool, deny []uintptr) []unix.SockFilter {
	ret := func(v uint32) unix.SockFilter { return unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: v} }
	eperm := uint32(unix.SECCOMP_RET_ERRNO) | uint32(unix.EPERM)
	prog := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 4}, // seccomp_data.arch
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: arch, Jt: 1},
		ret(unix.SECCOMP_RET_KILL_PROCESS),
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 0}, // seccomp_data.nr
	}
	if x32 {
		prog = append(prog, unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K, K: 0x40000000, Jf: 1}, ret(eperm))
	}
	for _, nr := range deny {
		prog = append(prog, unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: uint32(nr), Jf: 1}, ret(eperm))
	}
	return append(prog, ret(unix.SECCOMP_RET_ALLOW))
}

// installSeccomp applies the filter to the calling thread, which has
// no_new_privs set and is about to execute the command. An architecture
// the filter does not know gets none (seccompArch is 0).
func installSeccomp(readOnly bool) error {
	if seccompArch == 0 {
		return nil
	}
	deny := seccompDenied
	if readOnly {
		deny = append(append(append([]uintptr{}, deny...), seccompMetadata...), seccompLegacyMetadata...)
	}
	prog := seccompFilter(seccompArch, seccompX32, deny)
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0); err != nil {
		return fmt.Errorf("cannot install the seccomp filter of the Landlock-only sandbox: %w", err)
	}
	return nil
}

// seccompLayer says whether the kernel has seccomp filters, which only the
// Landlock-only sandbox uses.
func seccompLayer() Layer {
	l := Layer{Name: "seccomp", OK: seccompArch != 0, Detail: "used only with --sandbox-landlock-only: no setsid, setpgid, ptrace; no metadata change in read-only"}
	if _, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0); err != nil {
		l.OK, l.Detail = false, fmt.Sprintf("missing: %v", err)
	} else if seccompArch == 0 {
		l.Detail = "the filter knows only amd64 and arm64; the Landlock-only sandbox has none here"
	}
	return l
}
