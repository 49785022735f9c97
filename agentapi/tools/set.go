package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/workspace"
)

// The names of the built-in tools: Claude Code's, because persona files and
// scripts' tools:[…] lists name them.
const (
	Read      = "Read"
	Write     = "Write"
	Edit      = "Edit"
	Glob      = "Glob"
	Grep      = "Grep"
	Bash      = "Bash"
	TodoWrite = "TodoWrite"
)

// Names returns the tools mode allows, in the order the model sees them:
// Read, Glob, Grep, Bash and TodoWrite in every mode, and Write and Edit
// where the mode can write. Bash is offered in read-only too, inside a
// sandbox that can write nowhere.
func Names(mode workspace.Mode) []string {
	if mode.CanWrite() {
		return []string{Read, Write, Edit, Glob, Grep, Bash, TodoWrite}
	}
	return []string{Read, Glob, Grep, Bash, TodoWrite}
}

// IsBuiltin reports whether name is one of the built-in tools, whatever
// the mode. A persona may list names wfrun has not built (Skill,
// WebSearch, …): those are simply not available.
func IsBuiltin(name string) bool { return slices.Contains(Names(workspace.DangerFullAccess), name) }

// Options adjust a Set. The zero value is the full set of the mode with
// the default limits.
type Options struct {
	// Allow, when not nil, keeps only the tools it names (a persona's tools,
	// already narrowed by disallowedTools and the call's tools:[…]). It
	// never adds a tool the mode does not allow; unknown names are ignored.
	Allow []string
}

// Set is one child's built-in tools, rooted at its workspace (the run's, or
// the child's worktree). It implements agentapi.Toolbox, is safe for
// concurrent use, and must be closed when the child ends: Close removes the
// child's temp folder.
type Set struct {
	ws    *workspace.Workspace
	root  *os.Root // every file operation goes through it
	names []string

	writes chan struct{}  // holds a token while a Write or Edit runs: one at a time
	calls  sync.WaitGroup // the file tools' calls still running (see Call); tests wait on it

	testHookCall   func() // runs first on a file tool's goroutine; a test hook
	testHookLooked func() // runs between a write's look and its open; a test hook

	mu     sync.Mutex
	tmp    string // the child's temp folder, made by the first Bash call
	todos  []todo
	closed bool
}

var _ agentapi.Toolbox = (*Set)(nil)

// New returns the tool set of one child working in ws.
func New(ws *workspace.Workspace, opts Options) (*Set, error) {
	root, err := os.OpenRoot(ws.Root())
	if err != nil {
		return nil, fmt.Errorf("cannot open the workspace %s for the tools: %w", ws.Root(), err)
	}
	names := Names(ws.Mode())
	if opts.Allow != nil {
		names = slices.DeleteFunc(names, func(n string) bool { return !slices.Contains(opts.Allow, n) })
	}
	return &Set{ws: ws, root: root, names: names, writes: make(chan struct{}, 1)}, nil
}

// Workspace returns the workspace the tools work in.
func (s *Set) Workspace() *workspace.Workspace { return s.ws }

// Tools lists the tools of the set with their input schemas.
func (s *Set) Tools(ctx context.Context) ([]agentapi.Tool, error) {
	out := make([]agentapi.Tool, 0, len(s.names))
	for _, n := range s.names {
		out = append(out, agentapi.Tool{Name: n, Description: description(n, s.ws), InputSchema: json.RawMessage(schemas[n])})
	}
	return out, nil
}

// ErrUnknownTool is the cause when Call names a tool the set does not have.
var ErrUnknownTool = errors.New("unknown tool")

// ErrClosed is returned by Call after Close.
var ErrClosed = errors.New("the tool set is closed: the child has ended")

// Call runs one tool. Every error is for the model to read as the tool's
// result: bad arguments, a path outside the workspace, a failed command.
// None of them ends the child.
//
// Call returns as soon as ctx is done, whatever the tool is doing: Bash
// stops its command, and the file tools (Read, Write, Edit, Glob, Grep),
// which never wait on a pipe or a device but may still sit in a system
// call on a stalled file system, run on a goroutine of their own that Call
// stops waiting for. Such a goroutine holds nothing Call or Close waits
// on, and ends when its system call returns.
func (s *Set) Call(ctx context.Context, name string, args json.RawMessage) (string, error) {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return "", ErrClosed
	}
	if !slices.Contains(s.names, name) {
		return "", fmt.Errorf("%w %q: the tools available here are %s", ErrUnknownTool, name, strings.Join(s.names, ", "))
	}
	switch name {
	case Read:
		return s.detached(ctx, name, func(ctx context.Context) (string, error) { return call(ctx, name, args, s.read) })
	case Write:
		return s.detached(ctx, name, func(ctx context.Context) (string, error) { return call(ctx, name, args, s.write) })
	case Edit:
		return s.detached(ctx, name, func(ctx context.Context) (string, error) { return call(ctx, name, args, s.edit) })
	case Glob:
		return s.detached(ctx, name, func(ctx context.Context) (string, error) { return call(ctx, name, args, s.glob) })
	case Grep:
		return s.detached(ctx, name, func(ctx context.Context) (string, error) { return call(ctx, name, args, s.grep) })
	case Bash:
		return call(ctx, name, args, s.bash)
	case TodoWrite:
		return call(ctx, name, args, s.todoWrite)
	}
	return "", fmt.Errorf("%w %q", ErrUnknownTool, name)
}

// detached runs fn on a goroutine of its own and returns its result, or an
// error saying the call was stopped as soon as ctx is done, without
// waiting for fn: a file system that stalls a system call must not stall
// the child, and with it the engine's shutdown.
func (s *Set) detached(ctx context.Context, name string, fn func(context.Context) (string, error)) (string, error) {
	if ctx.Err() != nil {
		return "", stopped(ctx, name)
	}
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1) // fn's goroutine never blocks on it
	s.calls.Go(func() {
		if s.testHookCall != nil {
			s.testHookCall()
		}
		out, err := fn(ctx)
		done <- result{out, err}
	})
	select {
	case r := <-done:
		return r.out, r.err
	case <-ctx.Done():
		return "", stopped(ctx, name)
	}
}

// stopped is the error of a call cut short by ctx.
func stopped(ctx context.Context, name string) error {
	return fmt.Errorf("%s was stopped before it finished (%v): the child is ending", name, context.Cause(ctx))
}

// lockWrites takes the Write and Edit token, or gives up when ctx is done;
// unlock gives it back.
func (s *Set) lockWrites(ctx context.Context) (unlock func(), err error) {
	select {
	case s.writes <- struct{}{}:
		return func() { <-s.writes }, nil
	case <-ctx.Done():
		return nil, stopped(ctx, "the write")
	}
}

// Close removes the child's temp folder and releases the workspace. Calls
// after Close fail with ErrClosed.
func (s *Set) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var err error
	if s.tmp != "" {
		err = os.RemoveAll(s.tmp)
	}
	return errors.Join(err, s.root.Close())
}

// path resolves a path argument: the real absolute path (for messages and
// results) and the same relative to the root (for s.root).
func (s *Set) path(p string) (abs, rel string, err error) {
	if abs, err = s.ws.Resolve(p); err != nil {
		return "", "", err
	}
	return abs, s.ws.Rel(abs), nil
}

// unwrapPath drops the *fs.PathError around err: its path is relative to
// the root, and the message already names the absolute one.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
