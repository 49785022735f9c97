// Package testbin builds the programs that tests run as real processes (the
// test MCP server, the scripted ACP agent, wfrun itself) and lists the
// processes a test binary has left behind.
//
// It is test support: only _test.go files import it. It never starts the
// programs it builds and never kills a process.
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Build builds the main package pkg (an import path) into dir and returns
// the program's path, named after the last element of pkg. `go test` puts
// its own toolchain first on PATH, so the program is built by the Go that
// runs the tests.
func Build(dir, pkg string) (string, error) {
	bin := filepath.Join(dir, path.Base(pkg))
	out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin, nil
}

// BuildT is Build into t's temporary folder; a failed build fails t.
func BuildT(t testing.TB, pkg string) string {
	t.Helper()
	bin, err := Build(t.TempDir(), pkg)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// Child is a process whose parent is this test binary.
type Child struct {
	PID    int
	Name   string // the command name, from /proc/PID/stat
	Zombie bool   // it has exited and waits to be reaped
}

// String is the child as "PID (name)".
func (c Child) String() string { return fmt.Sprintf("%d (%s)", c.PID, c.Name) }

// Children lists the processes whose parent is this test binary, zombies
// included; ok is false where /proc is not available to list them.
func Children() (kids []Child, ok bool) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		return nil, false
	}
	for _, p := range stats {
		data, err := os.ReadFile(p)
		if err != nil {
			continue // the process has gone
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		s := string(data)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open {
			continue
		}
		f := strings.Fields(s[end+1:])
		if len(f) < 2 {
			continue
		}
		if ppid, _ := strconv.Atoi(f[1]); ppid == os.Getpid() {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			kids = append(kids, Child{PID: pid, Name: s[open+1 : end], Zombie: f[0] == "Z"})
		}
	}
	return kids, true
}

// LiveChildren waits up to d for every child of this test binary that is
// not a zombie to exit, and returns those still alive then (nil where /proc
// is not available).
func LiveChildren(d time.Duration) []Child {
	deadline := time.Now().Add(d)
	for {
		kids, _ := Children()
		var live []Child
		for _, k := range kids {
			if !k.Zombie {
				live = append(live, k)
			}
		}
		if len(live) == 0 || time.Now().After(deadline) {
			return live
		}
		time.Sleep(50 * time.Millisecond)
	}
}
