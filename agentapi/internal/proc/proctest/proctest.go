// Package proctest checks, in tests, that a process group started through
// package proc has left nothing alive behind.
package proctest

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// AssertGroupGone fails t if a live process is left in group pgid:
// kill(-pgid, 0) must say ESRCH, or every member left must be a zombie
// waiting for init (which may reap orphans lazily in a container) to
// collect it. It waits up to two seconds for that.
func AssertGroupGone(t testing.TB, pgid int) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		err := syscall.Kill(-pgid, 0)
		if errors.Is(err, syscall.ESRCH) {
			return
		}
		live := liveMembers(pgid)
		if len(live) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("process group %d still has live processes %v (kill: %v)", pgid, live, err)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// liveMembers lists the processes of group pgid that are not zombies, from
// /proc. Without /proc it reports the group as one unknown member.
func liveMembers(pgid int) []string {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return []string{"?"}
	}
	var live []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp …; comm may hold spaces, so cut at the last ')'.
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) >= 3 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			live = append(live, e.Name()+s[:i+1][len(e.Name()):])
		}
	}
	return live
}
