package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

type globArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
}

// found is one file a search found.
type found struct {
	abs   string
	mtime time.Time
}

// byRecency sorts files newest first, then by path: what was just
// changed is usually what matters.
func byRecency(fs []found) {
	slices.SortFunc(fs, func(a, b found) int {
		if c := b.mtime.Compare(a.mtime); c != 0 {
			return c
		}
		return strings.Compare(a.abs, b.abs)
	})
}

// glob lists the files under path whose path relative to it matches the
// doublestar pattern.
func (s *Set) glob(ctx context.Context, a globArgs) (string, error) {
	if a.Pattern == "" {
		return "", errors.New(`Glob needs a pattern, such as "**/*.go" or "src/*.ts"`)
	}
	dirAbs, dirRel, err := s.searchDir(a.Path)
	if err != nil {
		return "", err
	}
	pattern := a.Pattern
	if filepath.IsAbs(pattern) {
		// An absolute pattern must start inside the search folder.
		rel, err := filepath.Rel(dirAbs, pattern)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return "", fmt.Errorf("the pattern %s is outside %s: give a pattern relative to the search folder", pattern, dirAbs)
		}
		pattern = filepath.ToSlash(rel)
	}
	pattern = strings.TrimPrefix(pattern, "./")
	if !doublestar.ValidatePattern(pattern) {
		return "", fmt.Errorf("the pattern %q is not a valid glob: check its brackets and braces (** matches any folders, * any name part, {a,b} either)", a.Pattern)
	}
	// Walk only below the pattern's fixed leading folders.
	base, _ := doublestar.SplitPattern(pattern)
	start := dirRel
	if base != "." {
		if strings.Contains(base, "..") {
			return "", fmt.Errorf("the pattern %q climbs out of the search folder with ..: give the folder as path instead", a.Pattern)
		}
		start = path.Join(dirRel, base)
		if fi, err := fs.Stat(s.root.FS(), start); err != nil || !fi.IsDir() {
			return "No files found", nil
		}
	}
	var files []found
	err = s.walk(ctx, start, func(rel string, d fs.DirEntry) error {
		if d.Type()&^fs.ModeSymlink != 0 {
			return nil // a FIFO, socket or device: nothing for the tools
		}
		name := rel
		if dirRel != "." {
			name = strings.TrimPrefix(rel, dirRel+"/")
		}
		if doublestar.MatchUnvalidated(pattern, name) {
			f := found{abs: filepath.Join(s.ws.Root(), rel)}
			if fi, err := d.Info(); err == nil {
				f.mtime = fi.ModTime()
			}
			files = append(files, f)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("Glob could not search %s: %w", dirAbs, unwrapPath(err))
	}
	if len(files) == 0 {
		return "No files found", nil
	}
	byRecency(files)
	out := newCapped(maxOutput)
	for _, f := range files[:min(len(files), globResults)] {
		out.add(f.abs)
	}
	res := out.String()
	if len(files) > globResults {
		res += fmt.Sprintf("\n[%d more files not shown (at most %d, newest first): use a more specific pattern or path]", len(files)-globResults, globResults)
	}
	return res, nil
}

// searchDir resolves the folder a search starts in: the root when p is "".
func (s *Set) searchDir(p string) (abs, rel string, err error) {
	if p == "" {
		p = "."
	}
	if abs, rel, err = s.path(p); err != nil {
		return "", "", err
	}
	fi, err := s.root.Stat(rel)
	if err != nil {
		return "", "", fmt.Errorf("cannot search %s: %w", abs, unwrapPath(err))
	}
	if !fi.IsDir() {
		return "", "", fmt.Errorf("%s is a file, not a folder: give a folder as path (or Read the file)", abs)
	}
	return abs, filepath.ToSlash(rel), nil
}
