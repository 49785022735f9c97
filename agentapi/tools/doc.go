// Package tools is the built-in tool set a child of a model-loop provider
// (openai) works with: Read, Write, Edit, Glob, Grep, Bash and TodoWrite,
// with Claude Code's names and argument shapes, because persona files and
// scripts' tools:[…] lists name them.
//
// # The model
//
// A Set is one child's tools, rooted at one agentapi/workspace.Workspace:
// the run's workspace, or the child's own worktree. It implements
// agentapi.Toolbox (Tools lists them with their JSON Schemas, Call runs
// one), so a provider shows it to the model like any other toolbox and can
// compose it with MCP tools. A tool's failure is an error for the model to
// read, never the end of the child. A Set is safe for concurrent calls
// (Write and Edit run one at a time) and is closed when the child ends;
// Close removes the child's temp folder.
//
// Which tools exist follows the sandbox mode (Names): Read, Glob, Grep,
// Bash and TodoWrite always, Write and Edit where the mode can write.
// Options.Allow narrows that further (persona, disallowedTools, the call's
// tools), never widening it.
//
// # Paths
//
// Every path argument goes through Workspace.Resolve: relative paths are
// read from the root, symlinks are followed, and a path that ends outside
// is refused with a sentence. Files are then opened through an os.Root on
// the workspace, which refuses, at open time, a link swapped in to point
// out. Results show absolute, real paths.
//
// Only regular files are read or written. Every open is O_NONBLOCK and is
// followed by fstat on the descriptor: a named pipe (whose open would wait
// for a peer a hostile child never sends), a socket or a device is refused
// with a sentence naming the path and what it is, and the walks of Glob
// and Grep pass such entries by. Write and Edit refuse the paths
// Workspace.CheckWrite protects (git's configuration, hooks and excludes,
// .wfrun, .claude), judged by the real path, so a link to .git/config is
// refused too, as is a hard link to a protected file. They open the file
// through internal/nofollow, which follows no link beneath the root: a link
// planted after the check is refused, never followed.
//
// # Cancellation
//
// Call returns when its context is done. Bash stops its command; the file
// tools run on a goroutine of their own, so that even a system call stuck
// on a stalled file system cannot hold up the child, and with it the
// engine's shutdown: Call stops waiting, and the goroutine ends when the
// call returns.
//
// # Bounds
//
// Every result is bounded and says what it cut: Read shows 2000 lines and
// 100 KiB at a time with lines cut at 2000 characters, and names the offset
// to continue from; Glob returns 100 paths, newest first; Grep returns 250
// entries (head_limit, offset to page) and 30000 bytes, lines cut at 500
// characters, skipping binary files, files over 16 MiB and whatever is not
// a regular file; Bash returns
// 30000 bytes of output and says how much it dropped. Write and Edit work on
// files up to 16 MiB.
//
// Glob and Grep walk the files git would not ignore: the repository's
// .git/info/exclude, every .gitignore from the repository's top down
// (matched with go-git's gitignore implementation), and never .git or
// .wfrun/worktrees. Hidden files are searched; links are listed by Glob but
// not followed by Grep, as ripgrep does. The patterns are doublestar globs
// (github.com/bmatcuk/doublestar/v4) and RE2 regular expressions.
//
// # Bash
//
// Bash runs `bash -c COMMAND` in the root through agentapi/internal/proc,
// the process handling the command provider uses: a process group of its
// own, SIGTERM then SIGKILL after two seconds when the timeout (default 2
// minutes, at most 10) passes or the child is cancelled, background jobs
// killed when the command exits, stdout and stderr interleaved and capped.
// Its environment is minimal (the variables proc.InheritedEnv names, never
// API keys) with TMPDIR set to the child's temp folder, and it always runs
// through the workspace's sandbox (Workspace.Confine, started with
// Workspace.SysProcAttr): namespaces and Landlock in read-only and
// workspace-write, refused with a sentence where the kernel or the program
// cannot confine it, unconfined only in danger-full-access.
// A non-zero exit status is a tool error that carries the output.
//
// # Place
//
// The package is used by providers, never by the run side: it imports
// agentapi, agentapi/workspace, agentapi/internal/proc, internal/nofollow,
// doublestar, go-git's gitignore matcher and golang.org/x/sys/unix, and
// nothing of runtime, engine or cmd. A
// program that uses Bash in a sandboxed mode must call workspace.Init at
// the top of main.
package tools
