package command

import (
	"context"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// drainTimeout bounds the wait for stdout and stderr to reach EOF after
// the process group is gone. Only a process that left the group (setsid, a
// daemon) can hold the pipes open that long; its output is then cut off.
const drainTimeout = time.Second

// stopReason says why the provider stopped a child's process.
type stopReason int

const (
	notStopped  stopReason = iota // it exited on its own
	stoppedCtx                    // the context was done (cancel or deadline)
	stoppedSize                   // stdout exceeded the cap
)

// execution is what running one command produced.
type execution struct {
	stdout  []byte
	stderr  []byte // the last stderrTail bytes
	state   *os.ProcessState
	stopped stopReason
	termed  bool // the group was sent SIGTERM
	killed  bool // SIGTERM was not enough: SIGKILL ended it
}

// job is one command to run.
type job struct {
	path    string
	argv    []string
	env     []string
	dir     string
	stdin   *string // nil: stdin is /dev/null
	maxOut  int64
	grace   time.Duration
	started func(pgid int) // test hook, may be nil
}

// execute runs j in a process group of its own and returns when the group
// is gone (but see drainTimeout) and every goroutine it started has ended.
//
// The supervision, in order: the command runs until it exits, ctx is done,
// or stdout passes the cap. In the last two cases the group gets SIGTERM,
// and SIGKILL if the leader is still alive after the grace. Once the leader
// has exited, whatever is left of the group gets SIGKILL, and only then is
// the leader reaped (on Linux), so the group id cannot have been reused.
//
// An error means the process could not be started.
func execute(ctx context.Context, j job) (execution, error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return execution{}, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return execution{}, err
	}
	cmd := &exec.Cmd{
		Path: j.path, Args: j.argv, Env: j.env, Dir: j.dir,
		Stdout: outW, Stderr: errW,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	var inR, inW *os.File
	if j.stdin != nil {
		if inR, inW, err = os.Pipe(); err != nil {
			outR.Close()
			outW.Close()
			errR.Close()
			errW.Close()
			return execution{}, err
		}
		cmd.Stdin = inR
	}
	err = cmd.Start()
	// The child has its own copies of the write ends (and stdin's read
	// end); closing ours lets the readers see EOF when the group is gone.
	outW.Close()
	errW.Close()
	if inR != nil {
		inR.Close()
	}
	if err != nil {
		outR.Close()
		errR.Close()
		if inW != nil {
			inW.Close()
		}
		return execution{}, err
	}
	pgid := cmd.Process.Pid
	if j.started != nil {
		j.started(pgid)
	}

	var (
		ex       execution
		pipes    sync.WaitGroup
		overflow = make(chan struct{})
		once     sync.Once
	)
	pipes.Go(func() { ex.stdout = readCapped(outR, j.maxOut, func() { once.Do(func() { close(overflow) }) }) })
	pipes.Go(func() { ex.stderr = readTail(errR) })
	if inW != nil {
		pipes.Go(func() { writeAll(inW, *j.stdin) })
	}

	exited := make(chan struct{})
	var reaped bool
	go func() {
		reaped = awaitExit(cmd)
		close(exited)
	}()

	select {
	case <-exited:
	case <-ctx.Done():
		ex.stopped = stoppedCtx
	case <-overflow:
		ex.stopped = stoppedSize
	}
	if ex.stopped != notStopped {
		signalGroup(pgid, syscall.SIGTERM)
		ex.termed = true
		grace := time.NewTimer(j.grace)
		select {
		case <-exited:
		case <-grace.C:
			ex.killed = true
			signalGroup(pgid, syscall.SIGKILL)
			<-exited
		}
		grace.Stop()
	}
	signalGroup(pgid, syscall.SIGKILL) // the leader is gone; so is the rest of its group
	if !reaped {
		_ = cmd.Wait() // the exit status is in ProcessState
	}
	ex.state = cmd.ProcessState

	drained := make(chan struct{})
	go func() {
		pipes.Wait()
		close(drained)
	}()
	select {
	case <-drained:
	case <-time.After(drainTimeout):
		// A process outside the group holds a pipe: stop listening to it.
		outR.Close()
		errR.Close()
		if inW != nil {
			inW.Close()
		}
		<-drained
	}
	outR.Close()
	errR.Close()
	select {
	case <-overflow:
		// The command may have exited before the cap was noticed; its
		// output is cut off all the same.
		if ex.stopped == notStopped {
			ex.stopped = stoppedSize
		}
	default:
	}
	return ex, nil
}

// writeAll writes the prompt to the child's stdin and closes it, so that
// the child sees EOF. A child that exits without reading makes the write
// fail with EPIPE, which is no concern of ours.
func writeAll(w *os.File, s string) {
	_, _ = io.WriteString(w, s)
	_ = w.Close()
}

// signalGroup sends sig to every process of the group. Errors are dropped:
// ESRCH (nobody left) is the expected answer once the group is gone, and
// EPERM cannot happen for a group of our own children.
func signalGroup(pgid int, sig syscall.Signal) { _ = syscall.Kill(-pgid, sig) }
