package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// devServer is a wfrun-temporal dev server process on a loopback port.
type devServer struct {
	cmd    *exec.Cmd
	addr   string
	exited chan struct{}
}

// startDevServer starts bin's dev server with its state in memory and
// returns once its frontend is up (its first line says so).
func startDevServer(bin string) (*devServer, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "dev", "--port", strconv.Itoa(port))
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot start the dev server %s: %w", bin, err)
	}
	s := &devServer{cmd: cmd, addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), exited: make(chan struct{})}
	line, err := bufio.NewReader(out).ReadString('\n')
	go func() {
		_, _ = io.Copy(io.Discard, out)
		_ = cmd.Wait()
		close(s.exited)
	}()
	if err != nil || !strings.Contains(line, "Temporal dev server at") {
		s.stop()
		return nil, fmt.Errorf("the dev server %s did not come up: it printed %q (%v)", bin, line, err)
	}
	return s, nil
}

// stop ends the server and waits for it: SIGTERM, then SIGKILL if it has
// not exited within 30 s.
func (s *devServer) stop() { endProcess(s.cmd, s.exited) }

// endProcess sends cmd SIGTERM and waits for exited, killing it if it is
// still there after 30 s.
func endProcess(cmd *exec.Cmd, exited <-chan struct{}) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
	}
}

// workerSpec is what every worker process of a fleet shares.
type workerSpec struct {
	wfrun, addr, taskQueue, payloads, home string
	maxConcurrentAgents                    int
	ep                                     *endpoint
}

// workerProc is one `wfrun worker` process.
type workerProc struct {
	name   string // its path at the endpoint
	cmd    *exec.Cmd
	stderr *syncBuffer
	exited chan struct{}
	err    error // Wait's, once exited is closed
}

// startWorker starts `wfrun worker` named name (its path at the endpoint)
// and returns once it says it serves the task queue.
func startWorker(ctx context.Context, spec workerSpec, name string) (*workerProc, error) {
	dir := filepath.Join(spec.home, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	cmd := exec.Command(spec.wfrun, "worker", "--temporal", spec.addr, "--task-queue", spec.taskQueue,
		"--payloads", spec.payloads, "--provider", "openai", "--base-url", spec.ep.baseURL(name), "--model", "scalebench",
		"--max-concurrent-agents", strconv.Itoa(spec.maxConcurrentAgents))
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + spec.home, "OPENAI_API_KEY=scalebench"}
	w := &workerProc{name: name, cmd: cmd, stderr: newSyncBuffer(), exited: make(chan struct{})}
	cmd.Stderr = w.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot start %s worker: %w", spec.wfrun, err)
	}
	go func() {
		w.err = cmd.Wait()
		close(w.exited)
		w.stderr.wake()
	}()
	ready := "worker of task queue " + spec.taskQueue
	if err := w.stderr.waitFor(ctx, func(s string) bool {
		select {
		case <-w.exited:
			return true
		default:
		}
		return strings.Contains(s, ready)
	}); err != nil || !strings.Contains(w.stderr.String(), ready) {
		w.kill()
		return nil, fmt.Errorf("worker %s did not start (%v, exit %v): %s", name, err, w.err, w.stderr.String())
	}
	return w, nil
}

// stop asks the worker to stop (SIGTERM, as an operator would) and waits
// for it to exit; kill ends it at once, as a lost machine would.
func (w *workerProc) stop() { endProcess(w.cmd, w.exited) }

func (w *workerProc) kill() {
	_ = w.cmd.Process.Kill()
	<-w.exited
}

// syncBuffer is a process's output, which waiters follow.
type syncBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func newSyncBuffer() *syncBuffer { return &syncBuffer{changed: make(chan struct{})} }

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.buf.Write(p)
	close(b.changed)
	b.changed = make(chan struct{})
	return n, err
}

func (b *syncBuffer) wake() { _, _ = b.Write(nil) }

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitFor blocks until cond holds of the output so far, woken by every
// write, or until ctx is done.
func (b *syncBuffer) waitFor(ctx context.Context, cond func(string) bool) error {
	for {
		b.mu.Lock()
		s, changed := b.buf.String(), b.changed
		b.mu.Unlock()
		if cond(s) {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// cpuTime is the CPU time (user and system) process pid has used so far,
// from /proc; ok is false where that cannot be read. Linux counts it in
// USER_HZ ticks, 100 a second on every platform Go runs on.
func cpuTime(pid int) (d time.Duration, ok bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	s := string(data)
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return 0, false
	}
	// After "pid (comm)": state is field 3, utime 14 and stime 15.
	f := strings.Fields(s[end+1:])
	if len(f) < 13 {
		return 0, false
	}
	user, err1 := strconv.ParseInt(f[11], 10, 64)
	sys, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(user+sys) * 10 * time.Millisecond, true
}

// findRepo returns the root of the wfrun module that holds the working
// directory, to build cmd/wfrun from.
func findRepo() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.Contains(data, []byte("module github.com/wfrun/wfrun\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("the working directory is not inside the wfrun repository: run from a clone, or give -wfrun")
		}
		dir = parent
	}
}

// buildWfrun builds cmd/wfrun of the repository into dir.
func buildWfrun(dir string) (string, error) {
	repo, err := findRepo()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "wfrun")
	build := exec.Command("go", "build", "-o", bin, "./cmd/wfrun")
	build.Dir = repo
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/wfrun: %v\n%s", err, out)
	}
	return bin, nil
}
