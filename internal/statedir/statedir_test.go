package statedir_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/internal/nofollow"
	"github.com/wfrun/wfrun/internal/statedir"
)

func TestDir_FollowsTheVariablesInOrder(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		want string
		err  string
	}{
		{"WFRUN_STATE_DIR wins", map[string]string{"WFRUN_STATE_DIR": "/s", "XDG_STATE_HOME": "/x", "HOME": "/h"}, "/s", ""},
		{"then XDG_STATE_HOME", map[string]string{"XDG_STATE_HOME": "/x", "HOME": "/h"}, "/x/wfrun", ""},
		{"then HOME", map[string]string{"HOME": "/h"}, "/h/.local/state/wfrun", ""},
		{"a relative folder is refused", map[string]string{"WFRUN_STATE_DIR": "rel"}, "", "not an absolute path"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := statedir.Dir(func(k string) string { return c.env[k] })
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("Dir = %q, %v; want an error with %q", got, err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("Dir = %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

func TestMake_CreatesPrivateFoldersAndRefusesALink(t *testing.T) {
	top := t.TempDir()
	dir := filepath.Join(top, "a", "wfrun")
	if err := statedir.Make(dir, "keys"); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, filepath.Join(dir, "keys")} {
		fi, err := os.Stat(d)
		if err != nil || fi.Mode().Perm() != 0o700 {
			t.Fatalf("%s: %v, %v; want a folder of mode 0700", d, fi, err)
		}
	}
	if err := os.Chmod(filepath.Join(dir, "keys"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := statedir.Make(dir, "keys"); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "keys")); fi.Mode().Perm() != 0o700 {
		t.Fatalf("a keys folder open to others stayed %v", fi.Mode().Perm())
	}
	outside := t.TempDir()
	linked := filepath.Join(top, "linked")
	if err := os.Symlink(outside, linked); err != nil {
		t.Fatal(err)
	}
	if err := statedir.Make(linked); !errors.Is(err, nofollow.ErrLink) {
		t.Fatalf("Make through a link = %v, want ErrLink", err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "other")); err != nil {
		t.Fatal(err)
	}
	if err := statedir.Make(dir, "other/keys"); err == nil || !strings.Contains(err.Error(), "never follows") {
		t.Fatalf("Make of a linked sub-folder = %v", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("something was made outside: %v", entries)
	}
}
