package proc

import (
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Attached is a process the caller talks to over its standard input and
// output for as long as it likes (an agent that speaks a protocol on stdio),
// in a process group of its own. Attach starts it. The caller writes Stdin
// and reads Stdout from goroutines of its own; Stop and Kill end the
// process; Wait, which must be called exactly once, reaps it and releases
// the pipes. Stop, Kill and Exited may be called from any goroutine, any
// number of times, also after Wait.
type Attached struct {
	// Stdin is the process's standard input; closing it sends EOF.
	Stdin io.WriteCloser
	// Stdout is the process's standard output (with MergeStderr, its
	// standard error too). The caller reads it until EOF; Wait closes it.
	Stdout io.Reader

	cmd    *exec.Cmd
	pgid   int
	files  []*os.File    // our ends of the pipes, closed by Wait
	exited chan struct{} // closed once the leader has exited (on Linux, not yet reaped)
	reaped bool          // set before exited is closed
	stderr chan []byte   // the tail of stderr, once it reached EOF; nil with MergeStderr

	termed, killed atomic.Bool
	waitOnce       sync.Once
}

// Attach starts j with pipes to its standard input and output. Of j it uses
// Path, Args, Env, Dir, MergeStderr and Started; Stdin, MaxStdout, Overflow
// and Grace belong to Run. An error means the process could not be
// started.
func Attach(j Job) (*Attached, error) {
	a := &Attached{exited: make(chan struct{})}
	pipe := func() (r, w *os.File, err error) {
		if r, w, err = os.Pipe(); err == nil {
			a.files = append(a.files, r, w)
		}
		return
	}
	fail := func(err error) (*Attached, error) {
		for _, f := range a.files {
			f.Close()
		}
		return nil, err
	}
	inR, inW, err := pipe()
	if err != nil {
		return fail(err)
	}
	outR, outW, err := pipe()
	if err != nil {
		return fail(err)
	}
	cmd := &exec.Cmd{
		Path: j.Path, Args: j.Args, Env: j.Env, Dir: j.Dir,
		Stdin: inR, Stdout: outW, Stderr: outW,
		SysProcAttr: j.attr(),
	}
	if cmd.Env == nil {
		cmd.Env = []string{} // nil would mean "inherit ours"
	}
	var errR, errW *os.File
	if !j.MergeStderr {
		if errR, errW, err = pipe(); err != nil {
			return fail(err)
		}
		cmd.Stderr = errW
	}
	err = cmd.Start()
	// The child has its own copies of these ends; closing ours lets the
	// reader see EOF once the group is gone, and the child see EOF on stdin
	// once we close inW.
	inR.Close()
	outW.Close()
	if errW != nil {
		errW.Close()
	}
	if err != nil {
		return fail(err)
	}
	a.cmd, a.pgid = cmd, cmd.Process.Pid
	a.Stdin, a.Stdout = inW, outR
	if j.Started != nil {
		j.Started(a.pgid)
	}
	if errR != nil {
		a.stderr = make(chan []byte, 1)
		go func() { a.stderr <- readTail(errR) }()
	}
	go func() {
		a.reaped = awaitExit(cmd)
		close(a.exited)
	}()
	return a, nil
}

// Exited is closed once the process (the group's leader) has exited.
func (a *Attached) Exited() <-chan struct{} { return a.exited }

// Stop asks the process group to end: SIGTERM, then SIGKILL if the leader
// has not exited after grace. It returns once the leader has exited. A
// process that has already exited is left alone.
func (a *Attached) Stop(grace time.Duration) {
	select {
	case <-a.exited:
		return
	default:
	}
	a.termed.Store(true)
	signalGroup(a.pgid, syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-a.exited:
	case <-t.C:
		a.Kill()
		<-a.exited
	}
}

// Kill sends SIGKILL to the process group at once, unless the leader has
// already exited (Wait then kills what is left of the group).
func (a *Attached) Kill() {
	select {
	case <-a.exited:
		return
	default:
	}
	a.killed.Store(true)
	signalGroup(a.pgid, syscall.SIGKILL)
}

// Wait waits for the leader to exit, kills whatever is left of its group
// (on Linux before the leader is reaped, so that the group id cannot have
// been reused), reaps it, and releases the pipes. drained is the caller's
// signal that it has read Stdout to EOF (nil: no such signal); Wait gives
// it, and the stderr reader, DrainTimeout after the group is gone, because
// only a process that left the group can keep the pipes open longer, and
// then closes our ends of every pipe, which ends any read still blocked on
// them. The Execution has State, Stderr, Termed and Killed; its Stdout is
// empty (the caller read it).
func (a *Attached) Wait(drained <-chan struct{}) Execution {
	var ex Execution
	a.waitOnce.Do(func() {
		<-a.exited
		signalGroup(a.pgid, syscall.SIGKILL) // the leader is gone; so is the rest of its group
		if !a.reaped {
			_ = a.cmd.Wait() // the exit status is in ProcessState
		}
		ex.State = a.cmd.ProcessState
		// Give the caller's reader and ours DrainTimeout in all.
		deadline := time.NewTimer(DrainTimeout)
		defer deadline.Stop()
		var (
			tail     []byte
			gotTail  = a.stderr == nil
			timedOut bool
		)
		for !timedOut && (drained != nil || !gotTail) {
			select {
			case <-drained:
				drained = nil
			case tail = <-a.stderr:
				gotTail = true
			case <-deadline.C:
				timedOut = true
			}
		}
		for _, f := range a.files {
			f.Close()
		}
		if !gotTail {
			tail = <-a.stderr // the close above ends the reader
		}
		ex.Stderr = tail
		ex.Termed, ex.Killed = a.termed.Load(), a.killed.Load()
	})
	return ex
}
