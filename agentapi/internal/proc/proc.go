package proc

import (
	"context"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// DrainTimeout bounds the wait for the output pipes to reach EOF after the
// process group is gone. Only a process that left the group (setsid, a
// daemon) can hold the pipes open that long; its output is then cut off.
const DrainTimeout = time.Second

// Stop says why Run stopped a process.
type Stop int

const (
	NotStopped     Stop = iota // it exited on its own
	StoppedContext             // the context was done (cancel or deadline)
	StoppedSize                // stdout passed Job.MaxStdout under OverflowStop
)

// Overflow says what happens when stdout passes Job.MaxStdout.
type Overflow int

const (
	// OverflowStop stops the process group, as a context ending would: for
	// a command whose output is its answer, more output than the cap is a
	// runaway.
	OverflowStop Overflow = iota
	// OverflowDiscard keeps the process running and throws the rest of its
	// output away (still reading it, so the process never blocks on a full
	// pipe): for a shell command whose output is a log.
	OverflowDiscard
)

// Job is one command to run.
type Job struct {
	Path  string   // absolute path of the program
	Args  []string // argv, Args[0] included
	Env   []string // the whole environment; nil means an empty one
	Dir   string   // working directory; "" is the caller's
	Stdin *string  // nil: stdin is /dev/null; else written to stdin, which is then closed

	// MaxStdout caps what is kept of stdout; Overflow says what happens
	// beyond it.
	MaxStdout int64
	Overflow  Overflow

	// MergeStderr sends stderr into the stdout pipe, so that the two are
	// interleaved as a terminal would show them and share MaxStdout.
	// Execution.Stderr is then empty.
	MergeStderr bool

	// Grace is how long the group has between SIGTERM and SIGKILL.
	Grace time.Duration

	// SysProcAttr, if set, is the base of the process's attributes (the
	// sandbox's namespaces: workspace.Workspace.SysProcAttr); Run and
	// Attach set the process group on a copy.
	SysProcAttr *syscall.SysProcAttr

	// Started, if set, is called with the process-group id once the
	// process runs (tests use it to check that the group is gone later).
	Started func(pgid int)
}

// Execution is what running one Job produced.
type Execution struct {
	Stdout      []byte // at most Job.MaxStdout bytes
	StdoutBytes int64  // how many bytes the process wrote to stdout in all
	Stderr      []byte // the last StderrTail bytes (empty with MergeStderr)
	State       *os.ProcessState
	Stopped     Stop
	Termed      bool // the group was sent SIGTERM
	Killed      bool // SIGTERM was not enough: SIGKILL ended it
}

// Truncated reports whether stdout was longer than what was kept.
func (e Execution) Truncated() bool { return e.StdoutBytes > int64(len(e.Stdout)) }

// Signal returns the signal that ended the process, and false when it
// exited with a status (or never ran).
func (e Execution) Signal() (syscall.Signal, bool) {
	if e.State == nil {
		return 0, false
	}
	ws, ok := e.State.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return 0, false
	}
	return ws.Signal(), true
}

// StderrNote is "; stderr: TAIL" for an error message, with "…" before a
// tail that may have been cut, or "" when the process wrote nothing (but
// white space) to stderr.
func (e Execution) StderrNote() string {
	tail := strings.TrimSpace(strings.ToValidUTF8(string(e.Stderr), "\uFFFD"))
	if tail == "" {
		return ""
	}
	if len(e.Stderr) >= StderrTail {
		tail = "…" + tail
	}
	return "; stderr: " + tail
}

// Run runs j in a process group of its own and returns when the group is
// gone (but see DrainTimeout) and every goroutine it started has ended.
//
// The supervision, in order: the command runs until it exits, ctx is done,
// or stdout passes the cap under OverflowStop. In the last two cases the
// group gets SIGTERM, and SIGKILL if the leader is still alive after the
// grace. Once the leader has exited, whatever is left of the group gets
// SIGKILL, and only then is the leader reaped (on Linux), so the group id
// cannot have been reused.
//
// An error means the process could not be started.
func Run(ctx context.Context, j Job) (Execution, error) {
	cmd, p, err := start(j)
	if err != nil {
		return Execution{}, err
	}
	if j.Started != nil {
		j.Started(cmd.Process.Pid)
	}
	var ex Execution
	readers, overflow := p.serve(j, &ex)
	stopOnOverflow := overflow
	if j.Overflow == OverflowDiscard {
		stopOnOverflow = nil // a nil channel never fires: the process runs on
	}
	supervise(ctx, cmd, j.Grace, stopOnOverflow, &ex)
	p.drain(readers)
	if stopOnOverflow != nil {
		select {
		case <-stopOnOverflow:
			// The command may have exited before the cap was noticed; its
			// output is cut off all the same.
			if ex.Stopped == NotStopped {
				ex.Stopped = StoppedSize
			}
		default:
		}
	}
	return ex, nil
}

// pipes are the ends of a child's pipes that Run holds.
type pipes struct {
	files []*os.File // every end we hold, closed on the way out
	out   *os.File   // stdout's read end
	err   *os.File   // stderr's read end; nil with MergeStderr
	in    *os.File   // stdin's write end; nil without Stdin
}

func (p *pipes) pipe() (r, w *os.File, err error) {
	if r, w, err = os.Pipe(); err == nil {
		p.files = append(p.files, r, w)
	}
	return
}

func (p *pipes) close() {
	for _, f := range p.files {
		f.Close()
	}
}

// start starts j's process in a group of its own, with its pipes.
func start(j Job) (*exec.Cmd, *pipes, error) {
	p := &pipes{}
	outR, outW, err := p.pipe()
	if err != nil {
		return nil, nil, err
	}
	p.out = outR
	cmd := &exec.Cmd{
		Path: j.Path, Args: j.Args, Env: j.Env, Dir: j.Dir,
		Stdout: outW, Stderr: outW,
		SysProcAttr: j.attr(),
	}
	if cmd.Env == nil {
		cmd.Env = []string{} // nil would mean "inherit ours"
	}
	if !j.MergeStderr {
		errR, errW, err := p.pipe()
		if err != nil {
			p.close()
			return nil, nil, err
		}
		p.err, cmd.Stderr = errR, errW
	}
	if j.Stdin != nil {
		inR, inW, err := p.pipe()
		if err != nil {
			p.close()
			return nil, nil, err
		}
		p.in, cmd.Stdin = inW, inR
	}
	err = cmd.Start()
	// The child has its own copies of the write ends (and stdin's read end);
	// closing ours lets the readers see EOF when the group is gone.
	for _, f := range []any{cmd.Stdout, cmd.Stderr, cmd.Stdin} {
		if f, ok := f.(*os.File); ok {
			f.Close()
		}
	}
	if err != nil {
		p.close()
		return nil, nil, err
	}
	return cmd, p, nil
}

// serve starts the goroutines that read stdout and stderr into ex and
// write stdin. overflow is closed when stdout passes j.MaxStdout.
func (p *pipes) serve(j Job, ex *Execution) (readers *sync.WaitGroup, overflow chan struct{}) {
	readers, overflow = &sync.WaitGroup{}, make(chan struct{})
	var once sync.Once
	readers.Go(func() {
		ex.Stdout, ex.StdoutBytes = readCapped(p.out, j.MaxStdout, j.Overflow == OverflowDiscard, func() { once.Do(func() { close(overflow) }) })
	})
	if p.err != nil {
		readers.Go(func() { ex.Stderr = readTail(p.err) })
	}
	if p.in != nil {
		readers.Go(func() { writeAll(p.in, *j.Stdin) })
	}
	return readers, overflow
}

// supervise waits for cmd's leader to exit, ending the group first when
// ctx is done or stop fires (SIGTERM, then SIGKILL after grace); then it
// kills what is left of the group and only then reaps the leader, so that
// the group id cannot have been reused. It records all that in ex.
// testHookSupervise, when set by a test, runs before supervise waits, with
// the channel closed when the leader has exited.
var testHookSupervise func(exited <-chan struct{})

func supervise(ctx context.Context, cmd *exec.Cmd, grace time.Duration, stop <-chan struct{}, ex *Execution) {
	pgid := cmd.Process.Pid
	exited := make(chan struct{})
	var reaped bool
	go func() {
		reaped = awaitExit(cmd)
		close(exited)
	}()

	if testHookSupervise != nil {
		testHookSupervise(exited)
	}
	select {
	case <-exited:
	case <-ctx.Done():
		ex.Stopped = StoppedContext
	case <-stop:
		ex.Stopped = StoppedSize
	}
	if ex.Stopped == StoppedContext {
		// select picks at random among what is ready: a command that had
		// exited by itself when its context ended finished, and its
		// answer stands (an output cut at the cap stays cut).
		select {
		case <-exited:
			ex.Stopped = NotStopped
		default:
		}
	}
	if ex.Stopped != NotStopped {
		signalGroup(pgid, syscall.SIGTERM)
		ex.Termed = true
		t := time.NewTimer(grace)
		select {
		case <-exited:
		case <-t.C:
			ex.Killed = true
			signalGroup(pgid, syscall.SIGKILL)
			<-exited
		}
		t.Stop()
	}
	signalGroup(pgid, syscall.SIGKILL) // the leader is gone; so is the rest of its group
	if !reaped {
		_ = cmd.Wait() // the exit status is in ProcessState
	}
	ex.State = cmd.ProcessState
}

// drain waits for the readers, and closes every pipe end: after
// DrainTimeout, a process outside the group that still holds a pipe is no
// longer listened to.
func (p *pipes) drain(readers *sync.WaitGroup) {
	drained := make(chan struct{})
	go func() {
		readers.Wait()
		close(drained)
	}()
	select {
	case <-drained:
	case <-time.After(DrainTimeout):
		p.close()
		<-drained
	}
	p.close()
}

// writeAll writes s to the child's stdin and closes it, so that the child
// sees EOF. A child that exits without reading makes the write fail with
// EPIPE, which is no concern of ours.
func writeAll(w *os.File, s string) {
	_, _ = io.WriteString(w, s)
	_ = w.Close()
}

// attr is the process's attributes: j.SysProcAttr, in a group of its own.
func (j Job) attr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{}
	if j.SysProcAttr != nil {
		c := *j.SysProcAttr
		a = &c
	}
	a.Setpgid, a.Pgid = true, 0
	return a
}

// signalGroup sends sig to every process of the group. Errors are dropped:
// ESRCH (nobody left) is the expected answer once the group is gone, and
// EPERM cannot happen for a group of our own children.
func signalGroup(pgid int, sig syscall.Signal) { _ = syscall.Kill(-pgid, sig) }
