package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Grep's output modes.
const (
	modeFiles   = "files_with_matches"
	modeContent = "content"
	modeCount   = "count"
)

type grepArgs struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path"`
	Glob       string `json:"glob"`
	Type       string `json:"type"`
	OutputMode string `json:"output_mode"`
	IgnoreCase bool   `json:"-i"`
	LineNums   *bool  `json:"-n"`
	After      int    `json:"-A"`
	Before     int    `json:"-B"`
	Context    int    `json:"-C"`
	ContextAlt int    `json:"context" tools:"hidden"`
	HeadLimit  int    `json:"head_limit"`
	Offset     int    `json:"offset"`
	Multiline  bool   `json:"multiline"`
}

// grepQuery is a checked Grep call.
type grepQuery struct {
	re            *regexp.Regexp
	mode          string
	glob          string
	globPath      bool // the glob has a '/', so it is matched against the path, not the name
	types         []string
	lineNums      bool
	before, after int
	multiline     bool
}

func (s *Set) grepQuery(a grepArgs) (*grepQuery, error) {
	if a.Pattern == "" {
		return nil, errors.New("Grep needs a pattern: a regular expression (Go's RE2 syntax, like ripgrep's)")
	}
	q := &grepQuery{mode: a.OutputMode, lineNums: true, multiline: a.Multiline}
	switch q.mode {
	case "":
		q.mode = modeFiles
	case modeFiles, modeContent, modeCount:
	default:
		return nil, fmt.Errorf("unknown output_mode %q: use files_with_matches (the default), content or count", a.OutputMode)
	}
	flags := ""
	if a.IgnoreCase {
		flags += "i"
	}
	if a.Multiline {
		flags += "s"
	}
	expr := a.Pattern
	if flags != "" {
		expr = "(?" + flags + ")" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, fmt.Errorf("the pattern %q is not a valid regular expression (%v): Grep uses RE2 syntax, so escape literal braces and parentheses (interface\\{\\}) and leave out look-arounds and back-references", a.Pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	q.re = re
	if a.Glob != "" {
		if !doublestar.ValidatePattern(a.Glob) {
			return nil, fmt.Errorf("the glob %q is not valid: check its brackets and braces", a.Glob)
		}
		q.glob, q.globPath = a.Glob, strings.Contains(a.Glob, "/")
	}
	if a.Type != "" {
		globs, ok := fileTypes()[a.Type]
		if !ok {
			return nil, fmt.Errorf("unknown type %q: use one of %s, or a glob", a.Type, typeNames())
		}
		q.types = globs
	}
	if a.LineNums != nil {
		q.lineNums = *a.LineNums
	}
	ctxLines := max(a.Context, a.ContextAlt)
	q.before, q.after = max(a.Before, ctxLines), max(a.After, ctxLines)
	if a.Before < 0 || a.After < 0 || a.Context < 0 || a.HeadLimit < 0 || a.Offset < 0 {
		return nil, errors.New("-A, -B, -C, head_limit and offset of Grep must not be negative")
	}
	q.before, q.after = min(q.before, 50), min(q.after, 50)
	return q, nil
}

// wants reports whether the file at rel (relative to the search folder)
// passes the glob and type filters.
func (q *grepQuery) wants(rel string) bool {
	name := path.Base(rel)
	if q.glob != "" {
		subject := name
		if q.globPath {
			subject = rel
		}
		if !doublestar.MatchUnvalidated(q.glob, subject) {
			return false
		}
	}
	return q.types == nil || hasType(q.types, name)
}

// grep searches files for a regular expression, the way Claude Code's Grep
// (ripgrep) does, over the files of the workspace that git does not ignore.
func (s *Set) grep(ctx context.Context, a grepArgs) (string, error) {
	q, err := s.grepQuery(a)
	if err != nil {
		return "", err
	}
	target := a.Path
	if target == "" {
		target = "."
	}
	abs, rel, err := s.path(target)
	if err != nil {
		return "", err
	}
	fi, err := s.root.Stat(rel)
	if err != nil {
		return "", fmt.Errorf("cannot search %s: %w", abs, unwrapPath(err))
	}
	var (
		entries  []string // output lines, in file order
		files    []found
		skipped  int // files too large to search
		limit    = a.HeadLimit
		searched = func(relFile string, size int64) error {
			if size > grepFileBytes {
				skipped++
				return nil
			}
			// The walk, or the Stat above, has just seen a regular file.
			b, err := s.readRegular(relFile, true, grepFileBytes, Grep)
			if errors.Is(err, errTooLarge) { // it grew since the look
				skipped++
				return nil
			}
			if err != nil || bytes.IndexByte(b[:min(len(b), binarySniff)], 0) >= 0 {
				return nil // unreadable, not a regular file, or binary: not searched, as ripgrep does
			}
			fileAbs := filepath.Join(s.ws.Root(), relFile)
			lines, n := q.search(fileAbs, b)
			if n == 0 {
				return nil
			}
			switch q.mode {
			case modeContent:
				if len(entries) > 0 && (q.before > 0 || q.after > 0) {
					entries = append(entries, "--")
				}
				entries = append(entries, lines...)
			case modeCount:
				entries = append(entries, fmt.Sprintf("%s:%d", fileAbs, n))
			default:
				f := found{abs: fileAbs}
				if info, err := fs.Stat(s.root.FS(), relFile); err == nil {
					f.mtime = info.ModTime()
				}
				files = append(files, f)
			}
			return nil
		}
	)
	if limit == 0 {
		limit = grepEntries
	}
	if fi.IsDir() {
		relDir := filepath.ToSlash(rel)
		err = s.walk(ctx, relDir, func(relFile string, d fs.DirEntry) error {
			sub := relFile
			if relDir != "." {
				sub = strings.TrimPrefix(relFile, relDir+"/")
			}
			if !q.wants(sub) {
				return nil
			}
			// Links are not followed, as ripgrep does not follow them.
			info, err := d.Info()
			if err != nil || !info.Mode().IsRegular() {
				return nil
			}
			return searched(relFile, info.Size())
		})
		if err != nil {
			return "", fmt.Errorf("Grep could not search %s: %w", abs, unwrapPath(err))
		}
	} else if !fi.Mode().IsRegular() {
		return "", errNotRegular(abs, fi.Mode(), Grep)
	} else if err := searched(filepath.ToSlash(rel), fi.Size()); err != nil {
		return "", err
	}
	if q.mode == modeFiles {
		byRecency(files)
		for _, f := range files {
			entries = append(entries, f.abs)
		}
	}
	return grepResult(q.mode, entries, a.Offset, limit, skipped), nil
}

// grepResult applies offset and limit to the entries and bounds the text.
func grepResult(mode string, entries []string, offset, limit, skipped int) string {
	total := len(entries)
	note := ""
	if skipped > 0 {
		note = fmt.Sprintf("\n[%d files larger than %d MiB were not searched]", skipped, grepFileBytes>>20)
	}
	if total == 0 {
		return "No matches found" + note
	}
	if offset >= total {
		return fmt.Sprintf("No entries past offset %d: there are %d%s", offset, total, note)
	}
	page := entries[offset:]
	more := 0
	if len(page) > limit {
		more = len(page) - limit
		page = page[:limit]
	}
	out := newCapped(maxOutput)
	if mode == modeFiles {
		out.add(fmt.Sprintf("Found %d files", total))
	}
	for _, e := range page {
		out.add(e)
	}
	res := out.String()
	if more > 0 {
		res += fmt.Sprintf("\n[%d more entries not shown: call again with offset %d, or narrow the search]", more, offset+limit)
	}
	return res + note
}

// search finds q's matches in one file's content and returns its output
// lines (content mode) and the number of matches (matching lines, or
// matches in multiline mode).
func (q *grepQuery) search(file string, b []byte) ([]string, int) {
	text := string(b)
	if q.multiline {
		locs := q.re.FindAllStringIndex(text, -1)
		if q.mode != modeContent || len(locs) == 0 {
			return nil, len(locs)
		}
		var out []string
		for _, l := range locs {
			// Show the whole lines the match spans, as ripgrep does.
			start := strings.LastIndexByte(text[:l[0]], '\n') + 1
			end := len(text)
			if i := strings.IndexByte(text[max(l[1]-1, l[0]):], '\n'); i >= 0 {
				end = max(l[1]-1, l[0]) + i
			}
			line := strings.Count(text[:start], "\n") + 1
			for i, m := range strings.Split(text[start:end], "\n") {
				out = append(out, q.format(file, line+i, ':', strings.TrimSuffix(m, "\r")))
			}
		}
		return out, len(locs)
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	var (
		out     []string
		n       int
		printed = -1 // the last line index written, for context overlap
	)
	for i, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		if !q.re.MatchString(l) {
			continue
		}
		n++
		if q.mode != modeContent {
			continue
		}
		from := max(i-q.before, printed+1)
		if printed >= 0 && from > printed+1 && (q.before > 0 || q.after > 0) {
			out = append(out, "--")
		}
		for j := from; j < i; j++ {
			out = append(out, q.format(file, j+1, '-', strings.TrimSuffix(lines[j], "\r")))
		}
		if i > printed {
			out = append(out, q.format(file, i+1, ':', l))
		}
		printed = max(printed, i)
		for j := i + 1; j <= min(i+q.after, len(lines)-1); j++ {
			if q.re.MatchString(strings.TrimSuffix(lines[j], "\r")) {
				break // the next match prints itself with its own context
			}
			out = append(out, q.format(file, j+1, '-', strings.TrimSuffix(lines[j], "\r")))
			printed = j
		}
	}
	return out, n
}

// format renders one content line the way ripgrep does: path:line:text for
// a match, path-line-text for context.
func (q *grepQuery) format(file string, line int, sep byte, text string) string {
	text = cutRunes(strings.ToValidUTF8(text, "\uFFFD"), grepLineRunes)
	if q.lineNums {
		return fmt.Sprintf("%s%c%d%c%s", file, sep, line, sep, text)
	}
	return fmt.Sprintf("%s%c%s", file, sep, text)
}
