package isolate

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// A cage is the operating system's memory limit on one child process: a
// memory cgroup of its own where the engine may create one (the kernel
// kills the child when it goes past the limit), else an address-space limit
// (RLIMIT_AS, set on the running child before it gets any work), else
// nothing but the in-process limits (with the race detector, whose shadow
// memory no address-space limit leaves room for).
type cage struct {
	kind string // "cgroup", "rlimit" or "" (none)
	dir  string // the cgroup's folder
}

// overhead is what a Go process running goja needs besides the run's
// budget: the runtime, the binary's data, the VM's builtins.
const overhead = 96 << 20

// addressSlack is the address space a Go process reserves beyond what it
// uses (its heap arenas are reserved ahead, and an idle wfrun reserves about
// 1.6 GiB): an address-space limit must leave it, so it bounds a runaway
// allocation rather than the budget itself.
const addressSlack = 2 << 30

// newCage puts pid under a memory limit of budget bytes (plus the
// runtime's overhead). name names the cgroup.
func newCage(pid int, name string, budget int64) (*cage, error) {
	limit := budget*2 + overhead // the collector may let garbage reach about twice the live heap
	if dir, ok := cgroupFor(name, limit); ok {
		if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err == nil {
			return &cage{kind: "cgroup", dir: dir}, nil
		}
		_ = os.Remove(dir)
	}
	if raceEnabled {
		return &cage{}, nil
	}
	vm, err := virtualSize(pid)
	if err != nil {
		return &cage{}, fmt.Errorf("cannot read the child's address space size: %w", err)
	}
	as := uint64(vm + limit + addressSlack)
	lim := &unix.Rlimit{Cur: as, Max: as}
	if err := unix.Prlimit(pid, unix.RLIMIT_AS, lim, nil); err != nil {
		return &cage{}, fmt.Errorf("cannot limit the child's address space: %w", err)
	}
	return &cage{kind: "rlimit"}, nil
}

// cgroupFor makes a memory cgroup named name under this process's own, with
// limit, and returns its folder; ok is false where none can be made.
func cgroupFor(name string, limit int64) (dir string, ok bool) {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", false
	}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		var base, file string
		switch {
		case parts[1] == "memory": // v1
			base, file = filepath.Join("/sys/fs/cgroup/memory", parts[2]), "memory.limit_in_bytes"
		case parts[0] == "0" && parts[1] == "": // v2
			for _, root := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
				if _, err := os.Stat(filepath.Join(root, "cgroup.controllers")); err == nil {
					base, file = filepath.Join(root, parts[2]), "memory.max"
					break
				}
			}
		}
		if base == "" {
			continue
		}
		d := filepath.Join(base, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			continue
		}
		if err := os.WriteFile(filepath.Join(d, file), []byte(strconv.FormatInt(limit, 10)), 0); err != nil {
			_ = os.Remove(d)
			continue
		}
		return d, true
	}
	return "", false
}

// virtualSize is the child's address space in bytes (VmSize).
func virtualSize(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmSize:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no VmSize")
}

// oomKilled reports whether the cage's cgroup saw its limit hit.
func (c *cage) oomKilled() bool {
	if c == nil || c.kind != "cgroup" {
		return false
	}
	for _, f := range []string{"memory.failcnt", "memory.events"} {
		data, err := os.ReadFile(filepath.Join(c.dir, f))
		if err != nil {
			continue
		}
		if f == "memory.failcnt" {
			n, _ := strconv.Atoi(strings.TrimSpace(string(data)))
			return n > 0
		}
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "oom_kill "); ok && strings.TrimSpace(v) != "0" {
				return true
			}
		}
	}
	return false
}

// release removes the cgroup, once the child has exited.
func (c *cage) release() {
	if c != nil && c.kind == "cgroup" {
		_ = os.Remove(c.dir)
	}
}

// probeCage says which cage newCage would build, by making and removing a
// cgroup.
func probeCage() string {
	if dir, ok := cgroupFor(fmt.Sprintf("wfrun-probe-%d", os.Getpid()), 1<<30); ok {
		_ = os.Remove(dir)
		return "cgroup"
	}
	if raceEnabled {
		return ""
	}
	return "rlimit"
}
