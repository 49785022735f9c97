package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/wfrun/wfrun/agentapi/internal/proc"
)

type bashArgs struct {
	Command     string `json:"command"`
	Timeout     int    `json:"timeout"` // milliseconds
	Description string `json:"description"`
	// Accepted so that calls written for Claude Code decode, and refused
	// when set: wfrun runs every command in the foreground, in the sandbox.
	Background     bool `json:"run_in_background" tools:"hidden"`
	DisableSandbox bool `json:"dangerouslyDisableSandbox" tools:"hidden"`
}

// errBashTimeout is the cause of a command's own timeout.
var errBashTimeout = errors.New("the command's timeout passed")

// bash runs a command with bash -c in the root, under the workspace's
// sandbox: a process group of its own, a minimal environment, a timeout,
// stdout and stderr interleaved and capped.
func (s *Set) bash(ctx context.Context, a bashArgs) (string, error) {
	if strings.TrimSpace(a.Command) == "" {
		return "", errors.New("Bash needs a command")
	}
	if a.Background {
		return "", errors.New("run_in_background is not supported: commands run in the foreground until they exit or time out; give a timeout (up to 600000 ms) for long commands")
	}
	if a.DisableSandbox {
		return "", fmt.Errorf("the sandbox cannot be turned off from a tool call: the run's sandbox mode (%s) decides, set with --sandbox", s.ws.Mode())
	}
	if a.Timeout < 0 {
		return "", errors.New("the timeout of Bash is in milliseconds and must not be negative")
	}
	timeout := bashTimeout
	if a.Timeout > 0 {
		timeout = min(time.Duration(a.Timeout)*time.Millisecond, bashMaxTimeout)
	}
	if err := s.ws.CheckSandbox(); err != nil {
		return "", err
	}
	shell, err := shellPath()
	if err != nil {
		return "", err
	}
	tmp, err := s.tempDir()
	if err != nil {
		return "", err
	}
	path, argv, err := s.ws.Confine(shell, []string{filepath.Base(shell), "-c", a.Command}, tmp)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, errBashTimeout)
	defer cancel()
	ex, err := proc.Run(ctx, proc.Job{
		Path: path, Args: argv, Env: s.ws.CommandEnv(tmp, nil), Dir: s.ws.Root(), SysProcAttr: s.ws.SysProcAttr(),
		MaxStdout: maxOutput, Overflow: proc.OverflowDiscard, MergeStderr: true, Grace: bashGrace,
	})
	if err != nil {
		return "", fmt.Errorf("cannot start the command: %w", err)
	}
	out := strings.TrimRight(strings.ToValidUTF8(string(ex.Stdout), "\uFFFD"), "\n")
	if ex.Truncated() {
		out += fmt.Sprintf("\n[output truncated: the first %d of %d bytes are shown; redirect the output to a file and Read or Grep it]", len(ex.Stdout), ex.StdoutBytes)
	}
	if ex.Stopped == proc.StoppedContext {
		how := "it was stopped"
		if ex.Killed {
			how = "it ignored SIGTERM and was killed"
		}
		if context.Cause(ctx) == errBashTimeout {
			return "", fmt.Errorf("%s\n[the command did not finish within its timeout of %s, so %s; give a larger timeout (at most 600000 ms) or make it faster]", out, timeout, how)
		}
		return "", fmt.Errorf("%s\n[the child was stopped (%v), and the command with it]", out, context.Cause(ctx))
	}
	if st := ex.State; !st.Success() {
		if sig, ok := ex.Signal(); ok {
			return "", fmt.Errorf("%s\n[the command was killed by signal %s]", out, sig)
		}
		return "", fmt.Errorf("%s\n[exit status %d]", out, st.ExitCode())
	}
	if out == "" {
		out = "(no output)"
	}
	return out, nil
}

// shellPath is bash, or sh where there is no bash.
func shellPath() (string, error) {
	for _, p := range []string{"/bin/bash", "/usr/bin/bash", "/bin/sh"} {
		if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	p, err := exec.LookPath("bash")
	if err != nil {
		return "", errors.New("Bash needs a shell, and neither bash nor /bin/sh exists on this machine")
	}
	return p, nil
}

// tempDir returns the child's temp folder, creating it at the first call,
// or "" in read-only mode, where nothing is writable.
func (s *Set) tempDir() (string, error) {
	if !s.ws.Mode().CanWrite() {
		return "", nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return "", ErrClosed
	}
	if s.tmp == "" {
		dir, err := os.MkdirTemp("", "wfrun-child-")
		if err != nil {
			return "", fmt.Errorf("cannot create the child's temp folder: %w", err)
		}
		if dir, err = filepath.EvalSymlinks(dir); err != nil {
			return "", err
		}
		s.tmp = dir
	}
	return s.tmp, nil
}
