package tools

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/wfrun/wfrun/agentapi/workspace"
)

// failAfter bounds how long a test waits for a call that, before the fix
// it tests, blocked for ever: long enough for any loaded machine, only
// there to fail instead of hanging.
const failAfter = 30 * time.Second

// callOrFail runs a tool on a goroutine and fails the test if it has not
// returned within failAfter.
func (f *fixture) callOrFail(ctx context.Context, name string, args any) (string, error) {
	f.t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		f.t.Fatal(err)
	}
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := f.set.Call(ctx, name, b)
		done <- result{out, err}
	}()
	select {
	case r := <-done:
		return r.out, r.err
	case <-time.After(failAfter):
		f.t.Fatalf("%s %v is still blocked after %s", name, args, failAfter)
		return "", nil
	}
}

// mkfifo makes a named pipe at rel under the root.
func (f *fixture) mkfifo(rel string) string {
	f.t.Helper()
	p := filepath.Join(f.root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		f.t.Skipf("cannot make a FIFO here: %v", err)
	}
	return p
}

// TestFileToolsRefuseWhatIsNotARegularFile: a named pipe used to block
// Read and Write in open(2) until a writer or reader came, which a hostile
// child never sends; a socket and a folder are refused the same way, with
// a sentence that names the path, what it is, and that only regular files
// are read or written.
func TestFileToolsRefuseWhatIsNotARegularFile(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, map[string]string{"dir/keep.txt": "needle\n"})
	pipe := f.mkfifo("pipe")
	// A socket's path must be short: bind it in a short folder, then link
	// it into the workspace under a name Resolve will not follow out of.
	sockDir, err := os.MkdirTemp("", "wfs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	l, err := net.Listen("unix", filepath.Join(sockDir, "s"))
	if err != nil {
		t.Skipf("cannot listen on a Unix socket: %v", err)
	}
	t.Cleanup(func() { l.Close() })
	sock := filepath.Join(f.root, "sock")
	if err := os.Link(filepath.Join(sockDir, "s"), sock); err != nil {
		t.Skipf("cannot link the socket into the workspace: %v", err)
	}

	ctx := context.Background()
	cases := []struct {
		name string
		tool string
		args obj
		want []string
	}{
		{"read a FIFO", Read, obj{"file_path": "pipe"}, []string{pipe, "is a named pipe (FIFO), not a regular file", "Read reads only regular files"}},
		{"write a FIFO", Write, obj{"file_path": "pipe", "content": "x"}, []string{pipe, "is a named pipe (FIFO)", "Write writes only regular files"}},
		{"edit a FIFO", Edit, obj{"file_path": "pipe", "old_string": "a", "new_string": "b"}, []string{pipe, "is a named pipe (FIFO)", "Edit edits only regular files"}},
		{"grep a FIFO", Grep, obj{"pattern": "x", "path": "pipe"}, []string{pipe, "is a named pipe (FIFO)", "Grep searches only regular files"}},
		{"read a socket", Read, obj{"file_path": "sock"}, []string{sock, "is a socket, not a regular file"}},
		{"write a socket", Write, obj{"file_path": "sock", "content": "x"}, []string{sock, "is a socket"}},
		{"write a folder", Write, obj{"file_path": "dir", "content": "x"}, []string{"is a folder"}},
		{"edit a folder", Edit, obj{"file_path": "dir", "old_string": "a", "new_string": "b"}, []string{"is a folder"}},
	}
	for _, c := range cases {
		out, err := f.callOrFail(ctx, c.tool, c.args)
		if err == nil {
			t.Fatalf("%s: succeeded with %q", c.name, out)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: the error %q does not say %q", c.name, err, w)
			}
		}
	}
	if fi, err := os.Lstat(pipe); err != nil || fi.Mode().Type() != os.ModeNamedPipe {
		t.Fatalf("the FIFO was replaced: %v %v", fi, err)
	}

	// Walks pass them by: Grep searches the regular files around them,
	// Glob lists no FIFO or socket.
	if out, err := f.callOrFail(ctx, Grep, obj{"pattern": "needle|x"}); err != nil || !strings.Contains(out, "keep.txt") || strings.Contains(out, "pipe") {
		t.Fatalf("Grep over a folder with a FIFO: %q %v", out, err)
	}
	if out, err := f.callOrFail(ctx, Glob, obj{"pattern": "*"}); err != nil || strings.Contains(out, "pipe") || strings.Contains(out, "sock") {
		t.Fatalf("Glob listed a FIFO or socket: %q %v", out, err)
	}
}

// TestAFIFOPlantedAsAGitignoreDoesNotBlockAWalk: the walks read every
// .gitignore they meet, and the repository's info/exclude.
func TestAFIFOPlantedAsAGitignoreDoesNotBlockAWalk(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, map[string]string{"sub/a.txt": "needle\n"})
	f.gitInit()
	if err := os.Remove(filepath.Join(f.root, ".git", "info", "exclude")); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	f.mkfifo(".gitignore")
	f.mkfifo("sub/.gitignore")
	f.mkfifo(".git/info/exclude")
	ctx := context.Background()
	if out, err := f.callOrFail(ctx, Grep, obj{"pattern": "needle"}); err != nil || !strings.Contains(out, "a.txt") {
		t.Fatalf("Grep: %q %v", out, err)
	}
	if out, err := f.callOrFail(ctx, Glob, obj{"pattern": "**/*.txt", "path": "sub"}); err != nil || !strings.Contains(out, "a.txt") {
		t.Fatalf("Glob: %q %v", out, err)
	}
}

// TestACallReturnsWhenItsContextEnds: whatever a file tool is stuck in, the
// call returns once its context is done, and the stuck goroutine ends when
// what held it lets go.
func TestACallReturnsWhenItsContextEnds(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, map[string]string{"a.txt": "a\n"})
	entered, release := make(chan struct{}), make(chan struct{})
	f.set.testHookCall = func() {
		close(entered)
		<-release
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := f.set.Call(ctx, Read, json.RawMessage(`{"file_path":"a.txt"}`))
		errc <- err
	}()
	<-entered
	cancel(errors.New("the run was cancelled"))
	select {
	case err := <-errc:
		if err == nil || !strings.Contains(err.Error(), "Read was stopped") || !strings.Contains(err.Error(), "the run was cancelled") {
			t.Fatalf("a cancelled call returned %v", err)
		}
	case <-time.After(failAfter):
		t.Fatal("a call blocked in its tool did not return when its context ended")
	}
	if err := f.set.Close(); err != nil {
		t.Fatal(err)
	}
	close(release)
	f.set.calls.Wait() // the abandoned call ends too
}

// TestAnAbandonedWriteDoesNotHoldUpTheNext: Write and Edit run one at a
// time; one that waits for its turn gives up when its context ends.
func TestAnAbandonedWriteDoesNotHoldUpTheNext(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, nil)
	unlock, err := f.set.lockWrites(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.set.lockWrites(ctx); err == nil || !strings.Contains(err.Error(), "stopped") {
		t.Fatalf("waiting for a held write token: %v", err)
	}
	unlock()
	f.ok(Write, obj{"file_path": "after.txt", "content": "x"})
}

// TestReadClearsNonBlockingOnRegularFiles: O_NONBLOCK, used so that the
// open never waits, is taken off once fstat says the file is regular.
func TestReadClearsNonBlockingOnRegularFiles(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.ReadOnly, map[string]string{"a.txt": "a\n"})
	file, fi, err := f.set.openRead("a.txt", false)
	if err != nil || file == nil || !fi.Mode().IsRegular() {
		t.Fatalf("openRead: %v %v %v", file, fi, err)
	}
	defer file.Close()
	rc, err := file.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var flags int
	var ferr error
	if err := rc.Control(func(fd uintptr) { flags, ferr = unix.FcntlInt(fd, unix.F_GETFL, 0) }); err != nil || ferr != nil {
		t.Fatal(err, ferr)
	}
	if flags&unix.O_NONBLOCK != 0 {
		t.Fatalf("the file is still non-blocking: flags %#x", flags)
	}
}

// protectedFixture is a workspace with a git folder and wfrun's and Claude
// Code's own folders, every protected file present.
func protectedFixture(t *testing.T) *fixture {
	f := newFixture(t, workspace.WorkspaceWrite, map[string]string{
		".git/config":               "[core]\n",
		".git/config.worktree":      "[core]\n",
		".git/hooks/pre-commit":     "#!/bin/sh\n",
		".git/info/exclude":         "# exclude\n",
		".git/modules/sub/config":   "[core]\n",
		".git/HEAD":                 "ref: refs/heads/main\n",
		".wfrun/agents/a.md":        "agent\n",
		".claude/settings.json":     "{}\n",
		"link-to-config":            "->.git/config",
		"hooks":                     "->.git/hooks",
		"notes.txt":                 "notes\n",
		"dir/.git/config-not-a-git": "fine\n",
	})
	return f
}

// TestWriteAndEditRefuseProtectedPaths: git's configuration, hooks and
// excludes, submodules' git folders, .wfrun and .claude are refused with a
// sentence, also through a link that leads there; everything else is
// written as before.
func TestWriteAndEditRefuseProtectedPaths(t *testing.T) {
	t.Parallel()
	f := protectedFixture(t)
	protected := []string{
		".git/config", ".git/config.worktree", ".git/hooks/pre-commit", ".git/hooks/post-checkout",
		".git/info/exclude", ".git/info/attributes", ".git/modules/sub/config", ".wfrun/agents/a.md",
		".wfrun/new", ".claude/settings.json", ".claude/agents/x.md", "link-to-config", "hooks/pre-commit",
		"./dir/../.git/config", filepath.Join(f.root, ".git/config"),
	}
	before := map[string]string{}
	for _, p := range []string{".git/config", ".git/config.worktree", ".git/hooks/pre-commit", ".git/info/exclude", ".git/modules/sub/config", ".wfrun/agents/a.md", ".claude/settings.json"} {
		before[p] = f.read(p)
	}
	for _, p := range protected {
		f.fails(Write, obj{"file_path": p, "content": "[core]\n\tfsmonitor = evil\n"}, "is protected")
		f.fails(Edit, obj{"file_path": p, "old_string": "[core]", "new_string": "[core]\n\tfsmonitor = evil"}, "is protected")
	}
	for p, want := range before {
		if got := f.read(p); got != want {
			t.Errorf("%s was changed: %q", p, got)
		}
	}
	for _, p := range []string{".git/hooks/post-checkout", ".git/info/attributes", ".wfrun/new", ".claude/agents"} {
		if _, err := os.Lstat(filepath.Join(f.root, p)); err == nil {
			t.Errorf("%s was created", p)
		}
	}
	// The rest of the workspace, .git's other files included, is written
	// as before.
	f.ok(Write, obj{"file_path": "notes.txt", "content": "more notes\n"})
	f.ok(Edit, obj{"file_path": "notes.txt", "old_string": "more", "new_string": "most"})
	f.ok(Write, obj{"file_path": "dir/.git/config-not-a-git", "content": "still fine\n"})
	f.ok(Write, obj{"file_path": ".wfrunx/ok", "content": "x"})
	if f.read("notes.txt") != "most notes\n" {
		t.Fatalf("notes.txt: %q", f.read("notes.txt"))
	}
}

// TestAGitFileCannotBeWritten: a .git file points git, which wfrun runs,
// at a git folder; a child may neither replace one nor plant one.
func TestAGitFileCannotBeWritten(t *testing.T) {
	t.Parallel()
	for _, existing := range []bool{true, false} {
		files := map[string]string{"a.txt": "a\n"}
		if existing {
			files[".git"] = "gitdir: /somewhere/.git/worktrees/x\n"
		}
		f := newFixture(t, workspace.WorkspaceWrite, files)
		f.fails(Write, obj{"file_path": ".git", "content": "gitdir: /tmp/evil\n"}, "is protected")
		if existing {
			f.fails(Edit, obj{"file_path": ".git", "old_string": "/somewhere", "new_string": "/tmp/evil"}, "is protected")
			if f.read(".git") != "gitdir: /somewhere/.git/worktrees/x\n" {
				t.Fatal("the .git file was changed")
			}
		} else if _, err := os.Lstat(filepath.Join(f.root, ".git")); err == nil {
			t.Fatal("a .git file was planted")
		}
	}
}

// TestAHardLinkToAProtectedFileIsRefused: the same file under another name
// is still the protected file.
func TestAHardLinkToAProtectedFileIsRefused(t *testing.T) {
	t.Parallel()
	f := protectedFixture(t)
	if err := os.Link(filepath.Join(f.root, ".git/config"), filepath.Join(f.root, "alias")); err != nil {
		t.Skipf("cannot make a hard link: %v", err)
	}
	f.fails(Write, obj{"file_path": "alias", "content": "evil"}, "hard link", ".git/config", "is protected")
	f.fails(Edit, obj{"file_path": "alias", "old_string": "[core]", "new_string": "evil"}, "hard link", "is protected")
	if f.read(".git/config") != "[core]\n" {
		t.Fatal(".git/config was changed through a hard link")
	}
}

// TestAWriteDoesNotFollowALinkPlantedAfterTheCheck: Resolve and CheckWrite
// look at names; a child that swaps the file, or a folder on the way, for
// a link into .git between the check and the open is refused at the open.
// The links are relative, which os.Root would have followed.
func TestAWriteDoesNotFollowALinkPlantedAfterTheCheck(t *testing.T) {
	t.Parallel()
	f := protectedFixture(t)
	cases := []struct {
		name  string
		path  string // what Write is asked for, checked while it is harmless
		swap  string // then replaced, after the look, by a link to point
		point string
	}{
		{"the file", "notes.txt", "notes.txt", ".git/config"},
		{"a folder on the way", "dir/config", "dir", ".git"},
		{"a new file's folder", "newdir/pre-commit", "newdir", ".git/hooks"},
	}
	for _, c := range cases {
		f.set.testHookLooked = func() {
			swap := filepath.Join(f.root, c.swap)
			if err := os.RemoveAll(swap); err != nil {
				t.Error(err)
			}
			if err := os.Symlink(c.point, swap); err != nil {
				t.Error(err)
			}
		}
		msg := f.fails(Write, obj{"file_path": c.path, "content": "[core]\n\tfsmonitor = evil\n"}, "a symbolic link has since appeared", "never followed")
		if !strings.Contains(msg, filepath.Join(f.root, c.swap)) {
			t.Errorf("%s: the error does not name the link: %s", c.name, msg)
		}
	}
	if f.read(".git/config") != "[core]\n" {
		t.Fatal(".git/config was changed")
	}
	if entries, _ := os.ReadDir(filepath.Join(f.root, ".git/hooks")); len(entries) != 1 {
		t.Fatalf("something was created in .git/hooks: %v", entries)
	}
}

// TestProtectedListsTheRootsGitFolderFiles checks the list the tools and
// the sandbox share.
func TestProtectedListsTheRootsGitFolderFiles(t *testing.T) {
	t.Parallel()
	f := protectedFixture(t)
	got := f.set.ws.Protected()
	for _, p := range []string{".git/config", ".git/config.worktree", ".git/hooks", ".git/info", ".git/modules", ".wfrun", ".claude"} {
		if !slices.Contains(got, filepath.Join(f.root, p)) {
			t.Errorf("Protected() lacks %s: %v", p, got)
		}
	}
}
