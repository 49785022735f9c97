package workspace

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os/exec"
	"strings"
	"time"

	"github.com/wfrun/wfrun/agentapi/internal/proc"
)

// gitAttempts bounds the retries of a git command that found the
// repository locked by another git process.
const gitAttempts = 8

// gitEnv is the environment of every git wfrun runs, besides the few
// variables proc.Environ passes (PATH, HOME, the locale): no system or
// global configuration, no system attributes, no replace objects, no
// terminal prompt. No GIT_* variable of wfrun's own environment reaches
// git.
var gitEnv = map[string]string{
	"LC_ALL":                 "C",
	"GIT_TERMINAL_PROMPT":    "0",
	"GIT_CONFIG_NOSYSTEM":    "1",
	"GIT_CONFIG_GLOBAL":      "/dev/null",
	"GIT_ATTR_NOSYSTEM":      "1",
	"GIT_NO_REPLACE_OBJECTS": "1",
	"GIT_EDITOR":             "false",
	"GIT_PAGER":              "cat",
	"GIT_ASKPASS":            "",
	"SSH_ASKPASS":            "",
}

// gitOverrides switch off, on git's command line (which wins over every
// configuration file, the repository's and whatever it includes), every
// setting that makes git run a program or reach beyond the repository.
// The commands on the repository's own git folders (git) use none of them;
// they are off so that no later change of those commands can turn a
// child's configuration into a program wfrun runs. Filter drivers cannot
// be switched off by name (a child may name any), which is why the
// commands that convert file content run on a shadow git folder whose
// configuration wfrun wrote (shadow.go).
var gitOverrides = []string{
	"core.fsmonitor=false",
	"core.hooksPath=/dev/null",
	"core.untrackedCache=false",
	"core.attributesFile=/dev/null",
	"core.excludesFile=/dev/null",
	"core.pager=cat",
	"core.editor=false",
	"sequence.editor=false",
	"core.sshCommand=false",
	"core.askPass=",
	"core.alternateRefsCommand=",
	"credential.helper=",
	"diff.external=",
	"gpg.program=false",
	"gpg.ssh.program=false",
	"gpg.x509.program=false",
	"commit.gpgSign=false",
	"tag.gpgSign=false",
	"protocol.allow=never",
	"submodule.recurse=false",
	"gc.auto=0",
	"maintenance.auto=false",
}

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

// gitArgv is the command line of git running args with gitOverrides,
// after the global options opts (--git-dir).
func gitArgv(opts []string, args ...string) []string {
	argv := make([]string, 0, 2+len(opts)+2*len(gitOverrides)+len(args))
	argv = append(argv, "git", "--no-pager")
	argv = append(argv, opts...)
	for _, o := range gitOverrides {
		argv = append(argv, "-c", o)
	}
	return append(argv, args...)
}

// git runs the real git binary on the git folder gitDir, which wfrun
// resolved itself: given explicitly, so that git never looks for a .git
// file or folder that a child could have rewritten, run from inside it and
// without a work tree. Only commands that read and write refs and git's
// own folders go here (rev-parse, worktree add --no-checkout, update-ref):
// they convert no file's content, so the repository's configuration, which
// a child may have written, can name no program they run.
func git(ctx context.Context, gitDir string, args ...string) (string, error) {
	return runGit(ctx, gitDir, nil, []string{"--git-dir=" + gitDir}, args...)
}

// runGit runs git with gitEnv and env (which wins) in dir, and returns its
// stdout without the final newline. A command that finds the repository
// locked is retried with a growing pause, gitAttempts times at most.
func runGit(ctx context.Context, dir string, env map[string]string, opts []string, args ...string) (string, error) {
	all := maps.Clone(gitEnv)
	maps.Copy(all, env)
	environ := proc.Environ(nil, all)
	path, err := exec.LookPath("git")
	if err != nil {
		return "", fmt.Errorf("worktrees need the git command, which is not in PATH: install git: %w", err)
	}
	argv := gitArgv(opts, args...)
	pause := 20 * time.Millisecond
	for attempt := 1; ; attempt++ {
		ex, err := proc.Run(ctx, proc.Job{Path: path, Args: argv, Env: environ, Dir: dir, MaxStdout: 4 << 20, Overflow: proc.OverflowDiscard, Grace: time.Second})
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
