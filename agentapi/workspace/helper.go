package workspace

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"
)

// HelperArg is the hidden first argument that makes a program calling Init
// act as wfrun's helper instead of itself. The second argument is the
// helper's mode word ("sandbox"; Dispatch adds more), the rest belong to
// the mode. No user types it: Confine builds such command lines.
const HelperArg = "__wfrun-helper"

// sandboxWord is the mode word of the sandbox helper.
const sandboxWord = "sandbox"

// probeWord is the helper mode that checks, inside fresh namespaces, that
// the mounts the sandbox needs can be made.
const probeWord = "ns-probe"

// initialised records that Init (or Dispatch) ran in this process and
// returned, so that re-executing os.Executable() as the helper reaches the
// helper rather than the program's ordinary main. It is package state
// (with the namespaces probe's cached answer, a fact about the machine),
// and it has to be: the fact it records is about the binary, not about any
// value a caller could hold. It only ever goes from false to
// true.
var initialised atomic.Bool

func helperAvailable() bool { return initialised.Load() }

// Initialized reports whether Init (or Dispatch) ran in this process, so
// that re-executing os.Executable() with HelperArg reaches the helper modes
// rather than the program's ordinary main.
func Initialized() bool { return helperAvailable() }

// Init must be the first call in main of every program whose children run
// sandboxed commands (wfrun calls it through engine.Init, test binaries in
// TestMain). When the process was started as the helper it never returns:
// it applies the sandbox to itself and executes the command, or exits with
// status 125 and a sentence on stderr. Otherwise it returns at once and
// records that the helper is available; without that record Confine
// refuses every sandboxed command. It also makes the process non-dumpable,
// so that no child reads its environment (API keys) or memory through
// /proc or ptrace.
func Init() { Dispatch(nil) }

// Dispatch is Init with more helper modes: modes maps a mode word to a
// function that takes over the process with the arguments after the word
// and returns its exit status. The word "sandbox" is this package's own and
// cannot be replaced. An unknown word exits with status 2.
func Dispatch(modes map[string]func(args []string) int) {
	// No child may read this process's memory or environment through
	// /proc or ptrace, whatever its user: wfrun's, or a helper mode's such
	// as an isolated run's. The sandbox's own modes make themselves
	// non-dumpable once they have mapped their user (a non-dumpable
	// process's /proc/self/uid_map belongs to root), and a sandboxed
	// command is a new program, dumpable again.
	if len(os.Args) < 2 || os.Args[1] != HelperArg {
		_ = setNonDumpable()
		initialised.Store(true)
		return
	}
	if len(os.Args) < 3 || (os.Args[2] != sandboxWord && os.Args[2] != probeWord) {
		_ = setNonDumpable()
	}
	os.Exit(helperMain(os.Args[2:], modes, os.Stderr))
}

// helperMain runs the helper mode named by args[0] and returns the exit
// status (a mode that succeeds may never return).
func helperMain(args []string, modes map[string]func([]string) int, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintf(stderr, "wfrun helper: %s needs a mode word; it is started by wfrun itself, not by hand\n", HelperArg)
		return 2
	}
	switch args[0] {
	case sandboxWord:
		return sandboxMain(args[1:], stderr)
	case probeWord:
		return probeMain(args[1:], stderr)
	}
	if run, ok := modes[args[0]]; ok {
		return run(args[1:])
	}
	fmt.Fprintf(stderr, "wfrun helper: unknown mode %q; this binary knows %q\n", args[0], known(modes))
	return 2
}

func known(modes map[string]func([]string) int) []string {
	words := []string{sandboxWord, probeWord}
	for w := range modes {
		if w != sandboxWord && w != probeWord {
			words = append(words, w)
		}
	}
	return words
}
