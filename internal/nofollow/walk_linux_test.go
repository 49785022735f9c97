package nofollow_test

import (
	"testing"

	"github.com/wfrun/wfrun/internal/nofollow"
)

// TestWalk_GivesOpenat2sAnswers runs the checks again on the path taken
// where the kernel has no openat2.
func TestWalk_GivesOpenat2sAnswers(t *testing.T) {
	undo := nofollow.SetWalk()
	defer undo()
	TestOpenFile_RefusesEveryLinkAndEveryEscape(t)
	TestOpenDirAndReadFile(t)
}
