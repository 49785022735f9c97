// Package escapes holds no code, only the test that runs the catalogue of
// sandbox escapes under testdata/escapes: one YAML file per attack a
// hostile child could try with its tools (Read, Write, Edit, Glob, Grep,
// Bash) on the files, the git repository, the processes and the network
// around its workspace.
//
// # The model
//
// A case scripts a child's tool calls. The test builds wfrun once, and for
// each case and each mode it runs in (read-only or workspace-write, with or
// without worktree isolation; danger-full-access for the few cases that
// attack wfrun's own git and journal handling) it lays out a fresh folder
// (a git workspace, an "outside" folder next to it with files of a known
// mode, owner and mtime, a home for wfrun), starts a loopback
// chat-completions stub that answers the child's turns with the case's
// tool calls and then a final answer, and runs the real wfrun binary on a
// script of one or more agent() calls with --provider openai,
// OPENAI_BASE_URL at the stub and a secret in OPENAI_API_KEY. Then it
// checks what must hold if the sandbox holds: everything beside the
// workspace is unchanged, bit for bit and stat for stat; no tool result
// the stub was sent carries the secret or what the case names; no process
// the child started is alive once wfrun has exited; no TCP connection or
// UDP datagram reached the loopback canary; wfrun ended within its
// deadline, printed a result and shut its engine down in time; and the
// case's own checks (a file that must not be created, a file that must not
// contain a forged line, a resumed run that must not return a forged
// value, children that play their scripts to the end).
//
// A case that still escapes on this branch names, in its pending field,
// what fixes it: the test reports it as skipped with the escape it saw,
// and fails when it holds, so that the field is removed with the fix.
//
// # What it must never do
//
// It runs hostile commands only inside wfrun's sandbox, never itself; it
// never touches a path outside the temporary folders of its cases, and it
// ends only the processes whose command line names one of those folders
// (the survivors it reports). Its network is loopback only.
//
// The test runs on Linux only (Landlock, /proc); where wfrun refuses
// sandboxed commands, it skips the whole catalogue and says why.
//
// Run one case with go test ./internal/testkit/escapes -run 'TestEscapes/NAME'
// (docs/testing.md, "The escapes catalogue").
package escapes
