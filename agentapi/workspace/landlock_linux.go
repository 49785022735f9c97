package workspace

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// landlockABI asks the kernel for its Landlock ABI version.
func landlockABI() (int, error) { return llsys.LandlockGetABIVersion() }

// devices are the files every sandboxed process may write: what a shell
// and ordinary tools need to run at all.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

// configFor is the strictest Landlock configuration the kernel supports:
// everything it can restrict is restricted, and nothing is left to best
// effort, so that a rule the kernel cannot enforce is an error rather than
// silently dropped.
func configFor(abi int) landlock.Config {
	all := []landlock.Config{landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6,
		landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}
	return all[min(abi, len(all))-1]
}

// restrictSelf applies pol to the calling thread, which then must exec
// without ever being unlocked: the new program inherits the thread's
// Landlock domain, and the other threads of this process die with the
// exec. So the runtime's other threads need not be restricted, and the
// Go runtime never schedules anything on the restricted thread but us.
func restrictSelf(pol policy) error {
	abi, err := landlockABI()
	if err != nil || abi < neededABI(pol.Network) {
		return landlockRefusal(pol.Mode, pol.Network, abi, err)
	}
	cfg := configFor(abi)
	if pol.Network {
		cfg.HandledAccessNet = 0 // TCP stays as it is; files are still confined
	}
	if abi >= 7 {
		cfg = cfg.EnableLoggingForSubprocesses() // denials of the command reach the audit log
	}
	devs := landlock.RWFiles(devices...).IgnoreIfMissing()
	if abi >= 5 {
		devs = devs.WithIoctlDev()
	}
	rules := []landlock.Rule{landlock.RODirs("/"), devs}
	for _, d := range pol.Write {
		// Refer lets files move and link between the writable folders
		// (git's object store, mv across folders); never out of them.
		rules = append(rules, landlock.RWDirs(d).WithRefer())
	}
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("cannot build the Landlock ruleset: %w", err)
	}
	if fd < 0 {
		return errors.New("the Landlock ruleset came out empty, which would leave the command unconfined")
	}
	defer unix.Close(fd)
	runtime.LockOSThread() // never unlocked: see above
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("cannot set no_new_privs: %w", err)
	}
	if err := llsys.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("cannot enforce the Landlock ruleset: %w", err)
	}
	return nil
}
