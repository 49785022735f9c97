package acp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/workspace"
)

// TestFileRequestsRefuseWhatIsNotARegularFileAndProtectedPaths: a named
// pipe used to block fs/read_text_file and fs/write_text_file in open(2)
// until a peer came, which a hostile child never sends; and a write to
// .git/config went through.
func TestFileRequestsRefuseWhatIsNotARegularFileAndProtectedPaths(t *testing.T) {
	t.Parallel()
	f := newFixture(t, workspace.WorkspaceWrite, false, Agent{})
	if err := syscall.Mkfifo(f.path("pipe"), 0o644); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	if err := os.MkdirAll(f.path(".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.path(".git/config"), []byte("[core]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".git/config", f.path("cfg")); err != nil {
		t.Fatal(err)
	}
	// Only there to fail instead of hanging, as the test did before the fix.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := f.run(t, ctx, agentapi.Request{Prompt: strings.Join([]string{
		"@read pipe",
		"@write pipe x",
		"@write .git/config [core]",
		"@write cfg [core]",
		"@write .wfrun/agents/evil.md x",
		"@write notes.md fine",
		"@report",
	}, "\n")})
	if err != nil || res.Status != agentapi.StatusCompleted {
		t.Fatalf("the child did not complete: %+v %v", res, err)
	}
	pipe, cfg := f.path("pipe"), f.path(".git/config")
	want := []string{
		"read pipe: error: " + pipe + " is a named pipe (FIFO), not a regular file: wfrun reads only regular files",
		"write pipe: error: " + pipe + " is a named pipe (FIFO), not a regular file: wfrun writes only regular files",
		"write .git/config: error: " + cfg + " is protected",
		"write cfg: error: " + cfg + " is protected",
		"write .wfrun/agents/evil.md: error: " + f.path(".wfrun/agents/evil.md") + " is protected",
		"write notes.md: ok",
	}
	for _, w := range want {
		if !strings.Contains(res.Text, w) {
			t.Errorf("the answers do not say %q:\n%s", w, res.Text)
		}
	}
	if b, _ := os.ReadFile(cfg); string(b) != "[core]\n" {
		t.Fatalf(".git/config was written: %q", b)
	}
	if _, err := os.Lstat(filepath.Join(f.ws.Root(), ".wfrun")); err == nil {
		t.Fatal(".wfrun was created")
	}
}
