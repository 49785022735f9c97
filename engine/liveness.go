package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"

	"github.com/wfrun/wfrun/engine/journal"
	"github.com/wfrun/wfrun/engine/ledger"
)

// Crash detection (docs/durability.md). A live run holds the flock of its
// folder's lock file for its whole life, and the kernel drops it when the
// process dies. A running row of this host is abandoned at once when all
// of these hold: the process the row names is gone (a zombie counts as
// gone), and the run's lock is free. Neither alone is enough: a PID may be
// reused, and a child may replace the lock file or sit on a file system
// whose flock does nothing. Any doubt — another host, a lock that cannot
// be probed, a process that is alive — leaves the run to its lease.

// SweepRuns marks abandoned the runs whose process is gone: at once for a
// run of this host whose process has exited and whose lock is free, after
// its lease for any other. It returns how many runs it marked. resume,
// retry, continue and New sweep; a long-lived reader (the page) calls it
// before it reads run state.
func (e *Engine) SweepRuns() (int, error) {
	if !e.durable() {
		return 0, nil
	}
	n, err := e.reapLocal()
	if err != nil {
		return n, err
	}
	m, err := e.ledger.Sweep(context.Background())
	return n + m, err
}

// reapLocal marks abandoned the running rows of this host whose process
// and lock say the run is gone.
func (e *Engine) reapLocal() (int, error) {
	host, _ := os.Hostname()
	if host == "" {
		return 0, nil
	}
	running, err := e.ledger.List(context.Background(), ledger.Filter{Status: ledger.RunRunning})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range running {
		if r.Host != host || r.PID <= 0 || r.PID == os.Getpid() || !processGone(r.PID) {
			continue
		}
		folder, err := journal.OpenFolder(e.cfg.RunsDir, r.ID)
		if err != nil {
			continue // no folder of ours to ask: the lease decides
		}
		if free, known := folder.LockFree(); !free || !known {
			continue
		}
		detail := fmt.Sprintf("its process %d on %s is gone and its run lock is free: the process died without settling it", r.PID, r.Host)
		ok, err := e.ledger.Abandon(context.Background(), r.ID, r.PID, r.Host, detail)
		if err != nil {
			return n, err
		}
		if ok {
			n++
		}
	}
	return n, nil
}

// processGone reports whether process pid has exited: it does not exist,
// or it is a zombie waiting for its parent. A process of another user
// (EPERM) is alive.
func processGone(pid int) bool {
	err := syscall.Kill(pid, 0)
	if errors.Is(err, syscall.ESRCH) {
		return true
	}
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false // no /proc: alive as far as anyone can tell
	}
	// pid (comm) state ...: comm may hold spaces and parentheses, so
	// the state is the first field after the last ')'.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 || i+2 >= len(stat) {
		return false
	}
	return stat[i+2] == 'Z' || stat[i+2] == 'X'
}
