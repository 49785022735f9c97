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
	if len(args) == 0 || (len(args) == 1 && args[0] == "run") {
		fmt.Fprint(e.stderr, shortUsage())
		return exitUsage
	}
	if c, ok := lookup(args[0]); ok {
		return c.invoke(args[1:], e)
	}
	// wfrun SCRIPT.js: run is the command a script names without a verb.
	c, _ := lookup("run")
	return c.invoke(args, e)
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
		return usageFail(e, "%s", ue.Msg)
	}
	notice(e, "%v", err)
	return exitFailed
}

// notice writes one line for the person at the shell.
func notice(e env, format string, args ...any) {
	fmt.Fprintf(e.stderr, "wfrun: "+format+"\n", args...)
}
