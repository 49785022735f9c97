//go:build linux

package escapes

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// This file holds the checks every case gets: the outside folder stat for
// stat, and the processes left behind.

// snapshot is what a folder tree is, entry by entry: type and mode, owner,
// mtime, size and content (or a link's target).
type snapshot map[string]string

// takeSnapshot walks root without following links, leaving out the
// entries of root named skip.
func takeSnapshot(root string, skip ...string) snapshot {
	s := snapshot{}
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(root, path)
		if slices.Contains(skip, rel) {
			s[rel] = "not compared"
			return filepath.SkipDir
		}
		if err != nil {
			s[rel] = "unreadable: " + err.Error()
			return nil
		}
		fi, err := os.Lstat(path)
		if err != nil {
			s[rel] = "gone: " + err.Error()
			return nil
		}
		st, _ := fi.Sys().(*syscall.Stat_t)
		what := fmt.Sprintf("%v owner %d:%d mtime %s size %d", fi.Mode(), st.Uid, st.Gid,
			fi.ModTime().UTC().Format(time.RFC3339Nano), fi.Size())
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(path)
			what += " → " + target
		case fi.Mode().IsRegular():
			data, _ := os.ReadFile(path)
			what += fmt.Sprintf(" sha256 %x", sha256.Sum256(data))
		}
		s[rel] = what
		return nil
	})
	return s
}

// diff lists what changed from s to after, one line a path.
func (s snapshot) diff(after snapshot) []string {
	var out []string
	for p, was := range s {
		now, ok := after[p]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s was removed (was %s)", p, was))
		case now != was:
			out = append(out, fmt.Sprintf("%s changed: %s, was %s", p, now, was))
		}
	}
	for p, now := range after {
		if _, ok := s[p]; !ok {
			out = append(out, fmt.Sprintf("%s was created: %s", p, now))
		}
	}
	sort.Strings(out)
	return out
}

// survivor is a process that names a case's folder in its command line.
type survivor struct {
	pid     int
	cmdline string
	dying   bool // SIGKILL is pending: it is on its way out
}

// survivors lists the live processes (zombies excluded) whose command line
// contains root. Every process a case's child starts names the case's
// folder (its commands write there), so a survivor is a child's process
// that outlived wfrun; processes in other PID namespaces show here with
// the host's pid.
func survivors(root string) []survivor {
	var out []survivor
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil || !bytes.Contains(cmd, []byte(root)) {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join(d, "stat"))
		if end := bytes.LastIndexByte(stat, ')'); end > 0 && len(stat) > end+2 && stat[end+2] == 'Z' {
			continue
		}
		out = append(out, survivor{pid: pid, dying: killPending(filepath.Join(d, "status")),
			cmdline: strings.TrimSpace(string(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '})))})
	}
	return out
}

// killPending reports whether the process whose status file is at path has
// SIGKILL pending, for the thread or the whole process.
func killPending(path string) bool {
	data, _ := os.ReadFile(path)
	for _, line := range strings.Split(string(data), "\n") {
		name, mask, ok := strings.Cut(line, ":")
		if !ok || name != "SigPnd" && name != "ShdPnd" {
			continue
		}
		if bits, err := strconv.ParseUint(strings.TrimSpace(mask), 16, 64); err == nil && bits&(1<<(syscall.SIGKILL-1)) != 0 {
			return true
		}
	}
	return false
}

// waitSurvivors returns the processes naming root that outlived wfrun: at
// once those alive with no SIGKILL pending (wfrun exited without ending
// them), and, after waiting for the process table to show them gone for
// at most grace, those that were being killed but are still there.
func waitSurvivors(root string, grace time.Duration) []survivor {
	deadline := time.Now().Add(grace)
	for {
		left := survivors(root)
		dying := 0
		for _, s := range left {
			if s.dying {
				dying++
			}
		}
		if dying < len(left) || dying == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}
