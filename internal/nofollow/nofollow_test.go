package nofollow_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/wfrun/wfrun/internal/nofollow"
)

// tree makes base/{dir/file, dir/link -> ../outside, linkdir -> outside,
// outside/secret} and returns base and the outside folder.
func tree(t *testing.T) (base, outside string) {
	t.Helper()
	top := t.TempDir()
	base = filepath.Join(top, "base")
	outside = filepath.Join(top, "outside")
	for _, d := range []string{filepath.Join(base, "dir"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	must(t, os.WriteFile(filepath.Join(base, "dir", "file"), []byte("inside"), 0o644))
	must(t, os.WriteFile(filepath.Join(outside, "secret"), []byte("outside"), 0o644))
	must(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(base, "dir", "link")))
	must(t, os.Symlink(outside, filepath.Join(base, "linkdir")))
	must(t, os.Symlink("file", filepath.Join(base, "dir", "innerlink")))
	return base, outside
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestOpenFile_RefusesEveryLinkAndEveryEscape(t *testing.T) {
	base, outside := tree(t)
	cases := []struct {
		name string
		rel  string
		flag int
		want error // nil: opens
	}{
		{"a plain file opens", "dir/file", os.O_RDONLY, nil},
		{"a link as the last component is refused", "dir/link", os.O_RDONLY, nofollow.ErrLink},
		{"a link inside the base is refused too", "dir/innerlink", os.O_RDONLY, nofollow.ErrLink},
		{"a linked folder on the way is refused", "linkdir/secret", os.O_RDONLY, nofollow.ErrLink},
		{"creating through a linked folder is refused", "linkdir/new", os.O_WRONLY | os.O_CREATE, nofollow.ErrLink},
		{"appending through a link is refused", "dir/link", os.O_WRONLY | os.O_APPEND, nofollow.ErrLink},
		{"an absolute name is refused", filepath.Join(outside, "secret"), os.O_RDONLY, nofollow.ErrName},
		{"climbing out is refused", "../outside/secret", os.O_RDONLY, nofollow.ErrName},
		{"climbing out after a folder is refused", "dir/../../outside/secret", os.O_RDONLY, nofollow.ErrName},
		{"a new file is created", "dir/new", os.O_WRONLY | os.O_CREATE, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := nofollow.OpenFile(base, c.rel, c.flag, 0o644)
			if c.want == nil {
				if err != nil {
					t.Fatalf("OpenFile(%q) = %v, want it open", c.rel, err)
				}
				f.Close()
				return
			}
			if err == nil {
				f.Close()
				t.Fatalf("OpenFile(%q) opened, want %v", c.rel, c.want)
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("OpenFile(%q) = %v, want %v", c.rel, err, c.want)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret")); string(b) != "outside" {
		t.Fatalf("the outside file changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(outside, "new")); err == nil {
		t.Fatal("a file was created outside")
	}
}

func TestMkdirAll_StopsAtALinkedFolder(t *testing.T) {
	base, outside := tree(t)
	if err := nofollow.MkdirAll(base, "a/b/c", 0o755); err != nil {
		t.Fatalf("MkdirAll(a/b/c) = %v", err)
	}
	if err := nofollow.MkdirAll(base, "a/b/c", 0o755); err != nil {
		t.Fatalf("MkdirAll of an existing tree = %v, want nil", err)
	}
	if err := nofollow.MkdirAll(base, "linkdir/x", 0o755); !errors.Is(err, nofollow.ErrLink) {
		t.Fatalf("MkdirAll(linkdir/x) = %v, want ErrLink", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "x")); err == nil {
		t.Fatal("a folder was made outside")
	}
}

func TestOpenDirAndReadFile(t *testing.T) {
	base, _ := tree(t)
	d, err := nofollow.OpenDir(base, "dir")
	if err != nil {
		t.Fatalf("OpenDir(dir) = %v", err)
	}
	d.Close()
	if _, err := nofollow.OpenDir(base, "linkdir"); !errors.Is(err, nofollow.ErrLink) {
		t.Fatalf("OpenDir(linkdir) = %v, want ErrLink", err)
	}
	b, err := nofollow.ReadFile(base, "dir/file")
	if err != nil || string(b) != "inside" {
		t.Fatalf("ReadFile(dir/file) = %q, %v", b, err)
	}
	if _, err := nofollow.ReadFile(base, "dir/link"); !errors.Is(err, nofollow.ErrLink) {
		t.Fatalf("ReadFile(dir/link) = %v, want ErrLink", err)
	}
	if _, err := nofollow.ReadFile(base, "dir"); err == nil {
		t.Fatal("ReadFile of a folder succeeded")
	}
}

func TestRemoveAll_RemovesLinksNotWhatTheyPointAt(t *testing.T) {
	base, outside := tree(t)
	must(t, os.MkdirAll(filepath.Join(base, "gone", "deep"), 0o755))
	must(t, os.Symlink(outside, filepath.Join(base, "gone", "deep", "out")))
	must(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(base, "gone", "file")))
	if err := nofollow.RemoveAll(base, "gone"); err != nil {
		t.Fatalf("RemoveAll(gone) = %v", err)
	}
	if _, err := os.Lstat(filepath.Join(base, "gone")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("gone is still there: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(outside, "secret")); err != nil || string(b) != "outside" {
		t.Fatalf("the outside file changed: %q, %v", b, err)
	}
	if err := nofollow.RemoveAll(base, "linkdir/secret"); !errors.Is(err, nofollow.ErrLink) {
		t.Fatalf("RemoveAll through a linked folder = %v, want ErrLink", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "secret")); err != nil {
		t.Fatalf("the outside file was removed: %v", err)
	}
	if err := nofollow.RemoveAll(base, "missing/x"); err != nil {
		t.Fatalf("RemoveAll of a missing name = %v, want nil", err)
	}
	if err := nofollow.RemoveAll(base, "../outside"); !errors.Is(err, nofollow.ErrName) {
		t.Fatalf("RemoveAll(../outside) = %v, want ErrName", err)
	}
}
