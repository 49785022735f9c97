package tools

import (
	"bufio"
	"bytes"
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// ignores are the gitignore rules that apply inside a walk: those of the
// repository's info/exclude, of every .gitignore above the root up to the
// repository's top, and of every .gitignore met on the way down. Patterns
// are matched in the repository's frame (paths from its top), the way git
// reads them; frame is the root's path from the top.
type ignores struct {
	frame    []string
	patterns []gitignore.Pattern
}

// newIgnores collects the rules that apply above root.
func newIgnores(root string) *ignores {
	ig := &ignores{}
	top, gitPath := repoTop(root)
	if top == "" {
		return ig
	}
	if rel, err := filepath.Rel(top, root); err == nil && rel != "." {
		ig.frame = strings.Split(filepath.ToSlash(rel), "/")
	}
	if common := commonDir(gitPath); common != "" {
		ig.addFile(filepath.Join(common, "info", "exclude"), nil)
	}
	for i := range len(ig.frame) { // the .gitignore files between the top and root
		dir := filepath.Join(append([]string{top}, ig.frame[:i]...)...)
		ig.addFile(filepath.Join(dir, ".gitignore"), ig.frame[:i])
	}
	return ig
}

// repoTop finds the git repository root contains: the nearest folder at or
// above it with a .git entry, and that entry's path.
func repoTop(root string) (top, gitPath string) {
	for dir := root; ; dir = filepath.Dir(dir) {
		p := filepath.Join(dir, ".git")
		if _, err := os.Lstat(p); err == nil {
			return dir, p
		}
		if dir == filepath.Dir(dir) {
			return "", ""
		}
	}
}

// commonDir is the repository's shared git folder: .git itself, or for a
// worktree (where .git is a file saying "gitdir: …") the folder its
// commondir names.
func commonDir(gitPath string) string {
	fi, err := os.Stat(gitPath)
	if err != nil {
		return ""
	}
	if fi.IsDir() {
		return gitPath
	}
	b, err := readFileOutside(gitPath, maxIgnoreFile)
	if err != nil {
		return ""
	}
	gitdir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return ""
	}
	gitdir = strings.TrimSpace(gitdir)
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(filepath.Dir(gitPath), gitdir)
	}
	c, err := readFileOutside(filepath.Join(gitdir, "commondir"), maxIgnoreFile)
	if err != nil {
		return gitdir
	}
	common := strings.TrimSpace(string(c))
	if !filepath.IsAbs(common) {
		common = filepath.Join(gitdir, common)
	}
	return common
}

func (ig *ignores) addFile(file string, domain []string) {
	if b, err := readFileOutside(file, maxIgnoreFile); err == nil {
		ig.add(b, domain)
	}
}

// add parses the lines of one ignore file whose patterns apply under
// domain (the file's folder, in the repository's frame).
func (ig *ignores) add(b []byte, domain []string) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ig.patterns = append(ig.patterns, gitignore.ParsePattern(line, domain))
	}
}

// inFrame turns a slash path relative to the root into the repository's
// frame.
func (ig *ignores) inFrame(rel string) []string {
	parts := append([]string(nil), ig.frame...)
	if rel != "." {
		parts = append(parts, strings.Split(rel, "/")...)
	}
	return parts
}

// ignored reports whether git would ignore rel: the last pattern that
// matches decides.
func (ig *ignores) ignored(rel string, isDir bool) bool {
	p := ig.inFrame(rel)
	for i := len(ig.patterns) - 1; i >= 0; i-- {
		switch ig.patterns[i].Match(p, isDir) {
		case gitignore.Exclude:
			return true
		case gitignore.Include:
			return false
		}
	}
	return false
}

// skippedDir reports the folders no walk enters: git's own, and the
// worktrees of isolated children (each a copy of the repository).
func skippedDir(rel string) bool {
	return path.Base(rel) == ".git" || rel == ".wfrun/worktrees" || strings.HasSuffix(rel, "/.wfrun/worktrees")
}

// walk visits every file under start (a slash path relative to the root)
// that git would not ignore, in lexical order, skipping .git and
// .wfrun/worktrees. fn gets the file's path relative to the root and its
// entry, which may be anything but a folder (a link, a FIFO, …): fn looks
// before it opens. Returning fs.SkipAll stops the walk. Unreadable folders
// are skipped. The walk checks ctx between entries, opens folders without
// blocking and reads only regular .gitignore files.
func (s *Set) walk(ctx context.Context, start string, fn func(rel string, d fs.DirEntry) error) error {
	ig := newIgnores(s.ws.Root())
	fsys := walkFS{s}
	// The .gitignore files between the root and start apply too.
	if start != "." {
		parts := strings.Split(start, "/")
		for i := range len(parts) {
			dir := path.Join(append([]string{"."}, parts[:i]...)...)
			if b, err := s.readRegular(path.Join(dir, ".gitignore"), false, maxIgnoreFile, Grep); err == nil {
				ig.add(b, ig.inFrame(dir))
			}
		}
	}
	return fs.WalkDir(fsys, start, func(rel string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			if d != nil && d.IsDir() && rel != start {
				return fs.SkipDir
			}
			return err
		}
		if d.IsDir() {
			if rel != start && (skippedDir(rel) || ig.ignored(rel, true)) {
				return fs.SkipDir
			}
			if b, err := s.readRegular(path.Join(rel, ".gitignore"), false, maxIgnoreFile, Grep); err == nil {
				ig.add(b, ig.inFrame(rel))
			}
			return nil
		}
		if path.Base(rel) == ".git" || ig.ignored(rel, false) { // a worktree's .git is a file
			return nil
		}
		return fn(rel, d)
	})
}

// walkFS is the root as the file system of a walk: like os.Root's FS, but
// a folder is opened with O_NONBLOCK and O_DIRECTORY, so that a FIFO
// swapped in for a folder between two looks fails at once rather than
// blocking the walk.
type walkFS struct{ s *Set }

var _ fs.ReadDirFS = walkFS{}

// Open opens name without blocking; walks only open folders through it.
func (w walkFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	return w.s.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// ReadDir lists the folder name, sorted by file name.
func (w walkFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	f, err := w.s.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// Stat describes name, following links inside the root.
func (w walkFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	return w.s.root.Stat(name)
}
