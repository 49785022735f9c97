package acp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/wfrun/wfrun/agentapi/internal/proc"
	"github.com/wfrun/wfrun/agentapi/workspace"
)

// The bounds of terminals.
const (
	maxTerminals        = 16      // terminals one child may have at once
	defaultOutputLimit  = 1 << 20 // output kept without outputByteLimit
	maxTerminalOutput   = 4 << 20 // the most output kept, whatever outputByteLimit says
	terminalReadChunk   = 32 << 10
	shellCommandMarkers = " \t|&;<>()$`\\\"'*?[#~=%\n"
)

// terminalsOffered reports whether the client offers terminal/*: only
// where every command can run under the workspace's sandbox (Confine), so
// that nothing an agent runs through wfrun is unconfined by accident. In
// danger-full-access commands run without a sandbox, as the mode says.
func terminalsOffered(ws *workspace.Workspace) bool { return ws.CheckSandbox() == nil }

// terminal is one terminal/create: a command started through the
// workspace's sandbox in a process group of its own, the latest of its
// output (stdout and stderr interleaved) within a byte limit, and its exit.
type terminal struct {
	proc  *proc.Attached
	limit int
	grace func() // stops the command: SIGTERM, then SIGKILL after the grace

	mu        sync.Mutex
	out       []byte // the latest output, at most limit bytes, cut at a character boundary
	truncated bool
	status    *sdk.TerminalExitStatus // set once the command exited

	done chan struct{} // closed once the command exited and its output is read
}

// createTerminal serves terminal/create.
func (c *child) createTerminal(p sdk.CreateTerminalRequest) (string, error) {
	if err := c.ws.CheckSandbox(); err != nil {
		return "", refusal("%v", err)
	}
	dir := c.ws.Root()
	if p.Cwd != nil && *p.Cwd != "" {
		real, err := c.ws.Resolve(*p.Cwd)
		if err != nil {
			return "", refusal("%v", err)
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
			return "", refusal("the terminal's cwd %s is not a folder inside the workspace", real)
		}
		dir = real
	}
	tmp, err := c.tempDir()
	if err != nil {
		return "", refusal("%v", err)
	}
	env := c.terminalEnv(tmp, p.Env)
	name, args := p.Command, p.Args
	if len(args) == 0 && strings.ContainsAny(name, shellCommandMarkers) {
		// A whole command line in "command": run it as a shell would.
		name, args = "/bin/sh", []string{"-c", p.Command}
	}
	path, err := proc.LookPath(name, dir, env)
	if err != nil {
		return "", refusal("cannot run %q: %v", name, err)
	}
	path, argv, err := c.ws.Confine(path, append([]string{name}, args...), tmp)
	if err != nil {
		return "", refusal("%v", err)
	}
	limit := defaultOutputLimit
	if p.OutputByteLimit != nil {
		if *p.OutputByteLimit < 0 {
			return "", refusal("outputByteLimit is %d: give a positive number of bytes", *p.OutputByteLimit)
		}
		limit = min(*p.OutputByteLimit, maxTerminalOutput)
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return "", refusal("the child has ended; no more commands run")
	}
	if len(c.terms) >= maxTerminals {
		return "", refusal("%d terminals are open: release one (terminal/release) before creating another", len(c.terms))
	}
	a, err := proc.Attach(proc.Job{Path: path, Args: argv, Env: env, Dir: dir, MergeStderr: true, SysProcAttr: c.ws.SysProcAttr()})
	if err != nil {
		return "", refusal("cannot start %q: %v", p.Command, err)
	}
	_ = a.Stdin.Close() // a terminal's command reads nothing
	t := &terminal{proc: a, limit: limit, done: make(chan struct{})}
	grace := c.grace
	t.grace = func() { a.Stop(grace) }
	c.termSeq++
	id := fmt.Sprintf("term_%d", c.termSeq)
	if c.terms == nil {
		c.terms = map[string]*terminal{}
	}
	c.terms[id] = t
	c.termWG.Add(1)
	go func() {
		defer c.termWG.Done()
		t.run()
	}()
	return id, nil
}

// run reads the command's output until EOF and records its exit; it owns
// the process and ends once the process is reaped.
func (t *terminal) run() {
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, terminalReadChunk)
		for {
			n, err := t.proc.Stdout.Read(buf)
			t.append(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	ex := t.proc.Wait(read)
	<-read
	st := &sdk.TerminalExitStatus{}
	if sig, ok := ex.Signal(); ok {
		name := sig.String()
		st.Signal = &name
	} else {
		code := ex.State.ExitCode()
		st.ExitCode = &code
	}
	t.mu.Lock()
	t.status = st
	t.mu.Unlock()
	close(t.done)
}

// append keeps the latest limit bytes of output, cutting at a character
// boundary as the protocol asks.
func (t *terminal) append(b []byte) {
	if len(b) == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.out = append(t.out, b...)
	if len(t.out) <= t.limit {
		return
	}
	cut := len(t.out) - t.limit
	for cut < len(t.out) && !utf8.RuneStart(t.out[cut]) {
		cut++
	}
	t.out = append(t.out[:0], t.out[cut:]...)
	t.truncated = true
}

// output serves terminal/output.
func (t *terminal) output() sdk.TerminalOutputResponse {
	t.mu.Lock()
	defer t.mu.Unlock()
	return sdk.TerminalOutputResponse{Output: strings.ToValidUTF8(string(t.out), "\uFFFD"), Truncated: t.truncated, ExitStatus: t.status}
}

// wait serves terminal/wait_for_exit.
func (t *terminal) wait(ctx context.Context) (sdk.WaitForTerminalExitResponse, error) {
	select {
	case <-t.done:
	case <-ctx.Done():
		return sdk.WaitForTerminalExitResponse{}, ctx.Err()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return sdk.WaitForTerminalExitResponse{ExitCode: t.status.ExitCode, Signal: t.status.Signal}, nil
}

// kill serves terminal/kill: the command's group gets SIGTERM, then
// SIGKILL after the grace; the terminal and its output stay.
func (t *terminal) kill() { t.grace() }

// terminal returns the child's terminal id, or the error for an unknown
// one.
func (c *child) terminal(sid sdk.SessionId, id string) (*terminal, error) {
	if err := c.ownSession(sid); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.terms[id]
	if t == nil {
		return nil, &sdk.RequestError{Code: codeNotFound, Message: fmt.Sprintf("there is no terminal %q: it was never created or is released", id)}
	}
	return t, nil
}

// releaseTerminal serves terminal/release: the command is stopped if it
// still runs, and the terminal forgotten.
func (c *child) releaseTerminal(id string) {
	c.mu.Lock()
	t := c.terms[id]
	delete(c.terms, id)
	c.mu.Unlock()
	if t != nil {
		t.kill()
	}
}

// closeTerminals stops every terminal's command and waits until each is
// reaped; after it no terminal can be created.
func (c *child) closeTerminals() {
	c.mu.Lock()
	c.ended = true
	terms := c.terms
	c.terms = nil
	c.mu.Unlock()
	var wg sync.WaitGroup
	for _, t := range terms {
		wg.Go(t.kill)
	}
	wg.Wait()
	c.termWG.Wait()
}

// tempDir returns the child's temp folder for its terminals, creating it at
// the first call, or "" in read-only mode, where nothing is writable.
func (c *child) tempDir() (string, error) {
	if !c.ws.Mode().CanWrite() {
		return "", nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return "", errors.New("the child has ended; no more commands run")
	}
	if c.tmp == "" {
		dir, err := os.MkdirTemp("", "wfrun-acp-")
		if err != nil {
			return "", fmt.Errorf("cannot create the child's temp folder: %w", err)
		}
		if dir, err = filepath.EvalSymlinks(dir); err != nil {
			return "", err
		}
		c.tmp = dir
	}
	return c.tmp, nil
}

// terminalEnv is a terminal command's environment, as wfrun's Bash tool
// builds it (Workspace.CommandEnv), with the variables the request names;
// one with a name or value no environment can hold is left out.
func (c *child) terminalEnv(tmp string, extra []sdk.EnvVariable) []string {
	set := make(map[string]string, len(extra))
	for _, e := range extra {
		if proc.ValidName(e.Name) && !strings.ContainsRune(e.Value, 0) {
			set[e.Name] = e.Value
		}
	}
	return c.ws.CommandEnv(tmp, set)
}
