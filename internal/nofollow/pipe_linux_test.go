package nofollow_test

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/wfrun/wfrun/internal/nofollow"
)

func TestReadFile_RefusesANamedPipeWithoutWaiting(t *testing.T) {
	base, _ := tree(t)
	if err := syscall.Mkfifo(filepath.Join(base, "dir", "pipe"), 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	if _, err := nofollow.ReadFile(base, "dir/pipe"); err == nil {
		t.Fatal("ReadFile of a named pipe succeeded")
	}
}
