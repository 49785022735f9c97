package engine

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/wfrun/wfrun/engine/journal"
	"github.com/wfrun/wfrun/engine/ledger"
)

// exited starts a process that exits at once and waits until it has
// exited, leaving it a zombie (reap false) or reaping it (reap true).
func exited(t *testing.T, reap bool) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot start true: %v", err)
	}
	var info unix.Siginfo
	if err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil); err != nil {
		t.Fatal(err)
	}
	if reap {
		_ = cmd.Wait()
	} else {
		t.Cleanup(func() { _ = cmd.Wait() })
	}
	return cmd
}

func TestProcessGone_AZombieIsGoneAndThisProcessIsNot(t *testing.T) {
	if processGone(os.Getpid()) {
		t.Fatal("this process is gone")
	}
	if z := exited(t, false); !processGone(z.Process.Pid) {
		t.Fatal("a zombie is not gone")
	}
	if r := exited(t, true); !processGone(r.Process.Pid) {
		t.Fatal("a reaped process is not gone")
	}
}

// A running row of this host is abandoned at once only when its process is
// gone and its lock is free; anything else waits for the lease.
func TestSweepRuns_AbandonsAtOnceOnlyARunWhoseProcessIsGoneAndWhoseLockIsFree(t *testing.T) {
	runs := t.TempDir()
	e, err := New(Config{RunsDir: runs, StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	host, _ := os.Hostname()
	alive := exec.Command("sleep", "3600")
	if err := alive.Start(); err != nil {
		t.Skipf("cannot start sleep: %v", err)
	}
	defer func() { alive.Process.Kill(); alive.Wait() }()
	gone := exited(t, true).Process.Pid
	zombie := exited(t, false).Process.Pid

	cases := []struct {
		name       string
		id         string
		pid        int
		host       string
		holdLock   bool
		replaceLck bool
		want       ledger.RunStatus
	}{
		{"its process gone, its lock free", "wf_0000000000000001", gone, host, false, false, ledger.RunAbandoned},
		{"its process a zombie, its lock free", "wf_0000000000000002", zombie, host, false, false, ledger.RunAbandoned},
		{"its process alive, its lock file replaced by a child", "wf_0000000000000003", alive.Process.Pid, host, true, true, ledger.RunRunning},
		{"its process gone, its lock held", "wf_0000000000000004", gone, host, true, false, ledger.RunRunning},
		{"its process gone on another host", "wf_0000000000000005", gone, host + ".elsewhere", false, false, ledger.RunRunning},
	}
	for _, c := range cases {
		folder, err := journal.Create(runs, c.id)
		if err != nil {
			t.Fatal(err)
		}
		if c.holdLock {
			l, err := folder.Lock()
			if err != nil {
				t.Fatal(err)
			}
			defer l.Release()
		}
		if c.replaceLck {
			// The child cannot release the live run's lock; it replaces the file.
			if err := os.Remove(folder.Path(journal.LockFile)); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(folder.Path(journal.LockFile), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := e.ledger.Restore(t.Context(), ledger.Run{ID: c.id, Owner: "t", Status: ledger.RunRunning, PID: c.pid, Host: c.host,
			LeaseUntil: time.Now().Add(time.Hour)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.SweepRuns(); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		r, err := e.ledger.Get(context.Background(), c.id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != c.want {
			t.Errorf("%s: %s, want %s", c.name, r.Status, c.want)
		}
	}
}
