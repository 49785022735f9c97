package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/wfrun/wfrun/engine"
)

// Exit statuses (docs/cli.md, "Exit status").
const (
	exitCompleted   = 0   // the run completed; check passed
	exitFailed      = 1   // the run or a pre-check failed; the JSON says why
	exitUsage       = 2   // bad invocation: a message on stderr, no JSON
	exitInterrupted = 130 // cancelled by SIGINT or SIGTERM
)

// env is everything runMain takes from the process.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	// stderr gets notices, the progress line and `--events -`. When it is a
	// character device (os.File or anything with the same Stat method) the
	// live progress line is drawn on it.
	stderr io.Writer
	getenv func(string) string
	// signals delivers SIGINT and SIGTERM; nil means none will come.
	signals <-chan os.Signal
}

func main() {
	engine.Init() // first: started as the sandbox helper, this never returns
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	os.Exit(runMain(os.Args[1:], env{
		stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr,
		getenv: os.Getenv, signals: sigs,
	}))
}

// runMain runs one wfrun command and returns its exit status. It returns
// only after the engine has closed and every goroutine it started has
// ended — except on a second signal, when it returns exitInterrupted at once
// and leaves the process to exit.
func runMain(args []string, e env) int {
	if len(args) > 0 {
		switch args[0] {
		case "check":
			return checkCommand(args[1:], e)
		case "providers":
			return providersCommand(args[1:], e)
		case "doctor":
			return doctorCommand(args[1:], e)
		case "agents":
			return agentsCommand(args[1:], e)
		case "workflows":
			return workflowsCommand(args[1:], e)
		case "run":
			// wfrun run NAME|SCRIPT.js: the same as wfrun NAME|SCRIPT.js,
			// spelled as a verb (a saved workflow by name reads better so).
			return runCommand(args[1:], e)
		case "tool":
			return toolCommand(args[1:], e)
		case "mcp":
			return mcpCommand(args[1:], e)
		case "agent":
			return agentCommand(args[1:], e)
		case "resume":
			return resumeCommand(args[1:], e)
		case "retry":
			return retryCommand(args[1:], e)
		case "continue":
			return continueCommand(args[1:], e)
		case "runs":
			return runsCommand(args[1:], e)
		case "show":
			return showCommand(args[1:], e)
		case "stop":
			return stopCommand(args[1:], e)
		case "note":
			return noteCommand(args[1:], e)
		case "ralph":
			return ralphCommand(args[1:], e)
		case "ui":
			return uiCommand(args[1:], e)
		case "worker":
			return workerCommand(args[1:], e)
		case "temporal":
			return temporalCommand(args[1:], e)
		}
	}
	return runCommand(args, e)
}

// usageFail reports a bad invocation: one line on stderr, no JSON.
func usageFail(e env, format string, args ...any) int {
	fmt.Fprintf(e.stderr, "wfrun: "+format+"\n", args...)
	fmt.Fprintln(e.stderr, "Run 'wfrun --help' for the flags and examples.")
	return exitUsage
}

// setupFailed reports an error that a command which serves or converses
// (mcp, ui, worker, agent) met before it started: a *usageError exits 2,
// anything else is a notice on stderr, never JSON on stdout (which may be
// the protocol), and exits 1.
func setupFailed(e env, err error) int {
	var ue *usageError
	if errors.As(err, &ue) {
		return usageFail(e, "%s", ue.msg)
	}
	notice(e, "%v", err)
	return exitFailed
}

// notice writes one line for the person at the shell.
func notice(e env, format string, args ...any) {
	fmt.Fprintf(e.stderr, "wfrun: "+format+"\n", args...)
}
