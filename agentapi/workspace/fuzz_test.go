package workspace

import (
	"path/filepath"
	"strings"
	"testing"
)

// FuzzResolve feeds arbitrary paths to Resolve over a tree with links in
// and out: it must never panic or hang, and whatever it accepts is a clean
// absolute path inside the root.
func FuzzResolve(f *testing.F) {
	for _, seed := range []string{".", "..", "/", "a/../../b", "link-out-dir/x", "loop-a", "self", "~",
		"src/up/up/up", "chain1/../x", "dangling-out", "link-root/tmp", "\x00", strings.Repeat("../", 50)} {
		f.Add(seed)
	}
	w, _ := tree(f)
	f.Fuzz(func(t *testing.T, p string) {
		got, err := w.Resolve(p)
		if err != nil {
			if got != "" {
				t.Fatalf("Resolve(%q) returned %q with the error %v", p, got, err)
			}
			return
		}
		if !filepath.IsAbs(got) || filepath.Clean(got) != got || !within(w.Root(), got) {
			t.Fatalf("Resolve(%q) = %q, not a clean path inside %s", p, got, w.Root())
		}
	})
}

// FuzzCheckWrite resolves arbitrary paths as Write does and checks that
// whatever CheckWrite lets through is not, by its path relative to the
// root, inside one of the protected names.
func FuzzCheckWrite(f *testing.F) {
	for _, seed := range []string{".git/config", ".git//hooks/x", "./.git/info/../info/exclude", ".wfrun", ".claude/x",
		"a/../.git/modules/m/config", ".git", ".gitx", "link-root/.git/config", ".git/HEAD"} {
		f.Add(seed)
	}
	w, _ := tree(f)
	f.Fuzz(func(t *testing.T, p string) {
		real, err := w.Resolve(p)
		if err != nil || w.CheckWrite(real) != nil {
			return
		}
		rel := filepath.ToSlash(w.Rel(real))
		for _, name := range protectedInRoot {
			if rel == name || strings.HasPrefix(rel, name+"/") {
				t.Fatalf("CheckWrite let %q through (it resolves to %s)", p, real)
			}
		}
	})
}
