package workspace

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/wfrun/wfrun/agentapi/internal/proc"
)

// gitAttempts bounds the retries of a git command that found the
// repository locked by another git process.
const gitAttempts = 8

// gitError is a git command that failed, with the end of its stderr.
type gitError struct {
	args   []string
	status string
	stderr string
}

func (e *gitError) Error() string {
	return fmt.Sprintf("git %s %s: %s", strings.Join(e.args, " "), e.status, e.stderr)
}

// locked reports whether git failed only because another git process held
// a lock file of the repository, which is worth waiting for.
func (e *gitError) locked() bool {
	s := e.stderr
	return strings.Contains(s, ".lock': File exists") || strings.Contains(s, "Another git process seems to be running") ||
		strings.Contains(s, "could not lock") || strings.Contains(s, "cannot lock ref") || strings.Contains(s, "Unable to create") && strings.Contains(s, ".lock")
}

// git runs the real git binary in dir with a minimal environment and
// returns its stdout without the final newline. Hooks never run: the
// commands are wfrun's bookkeeping, not the user's workflow. A command that
// finds the repository locked is retried with a growing pause, gitAttempts
// times at most.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	env := proc.Environ(nil, map[string]string{"LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0"})
	path, err := exec.LookPath("git")
	if err != nil {
		return "", fmt.Errorf("worktrees need the git command, which is not in PATH: install git: %w", err)
	}
	argv := append([]string{"git", "-c", "core.hooksPath=/dev/null", "-C", dir}, args...)
	pause := 20 * time.Millisecond
	for attempt := 1; ; attempt++ {
		ex, err := proc.Run(ctx, proc.Job{Path: path, Args: argv, Env: env, MaxStdout: 4 << 20, Overflow: proc.OverflowDiscard, Grace: time.Second})
		if err != nil {
			return "", fmt.Errorf("cannot run git: %w", err)
		}
		if ex.Stopped == proc.StoppedContext {
			return "", fmt.Errorf("git %s was stopped: %w", args[0], context.Cause(ctx))
		}
		if ex.State.Success() {
			return strings.TrimRight(string(ex.Stdout), "\n"), nil
		}
		ge := &gitError{args: args, status: ex.State.String(), stderr: strings.TrimSpace(string(ex.Stderr))}
		if !ge.locked() || attempt == gitAttempts {
			return "", ge
		}
		select {
		case <-ctx.Done():
			return "", errors.Join(ge, context.Cause(ctx))
		case <-time.After(pause):
		}
		pause = min(2*pause, time.Second)
	}
}
