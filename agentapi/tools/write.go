package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
)

type writeArgs struct {
	FilePath string `json:"file_path"`
	Content  string `json:"content"`
}

// write creates or replaces a file with content, creating its folders.
func (s *Set) write(ctx context.Context, a writeArgs) (string, error) {
	if a.FilePath == "" {
		return "", errors.New("Write needs file_path (the file to write, absolute or relative to the workspace) and content")
	}
	if len(a.Content) > maxWriteBytes {
		return "", fmt.Errorf("the content is %d bytes, more than the %d MiB Write accepts: write the file in parts with Bash, or generate it with a command", len(a.Content), maxWriteBytes>>20)
	}
	abs, rel, err := s.writablePath(a.FilePath)
	if err != nil {
		return "", err
	}
	unlock, err := s.lockWrites(ctx)
	if err != nil {
		return "", err
	}
	defer unlock()
	f, created, err := s.openWrite(abs, rel, true, false, Write)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if err := s.checkLinks(abs, f); err != nil {
		return "", err
	}
	if err := rewrite(f, a.Content); err != nil {
		return "", fmt.Errorf("cannot write %s: %w", abs, unwrapPath(err))
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("cannot write %s: %w", abs, unwrapPath(err))
	}
	verb := "Overwrote"
	if created {
		verb = "Created"
	}
	return fmt.Sprintf("%s %s (%d bytes, %d lines)", verb, abs, len(a.Content), lineCount(a.Content)), nil
}

// writablePath resolves a path argument of Write or Edit and refuses a
// protected one (Workspace.CheckWrite), judged by its real path, so that a
// link to .git/config is refused like .git/config itself.
func (s *Set) writablePath(p string) (abs, rel string, err error) {
	if abs, rel, err = s.path(p); err != nil {
		return "", "", err
	}
	if err := s.ws.CheckWrite(abs); err != nil {
		return "", "", err
	}
	return abs, rel, nil
}

// checkLinks refuses to write the open file f when it is a hard link to a
// protected file: the same file under another name.
func (s *Set) checkLinks(abs string, f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", abs, unwrapPath(err))
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || st.Nlink <= 1 {
		return nil
	}
	for _, p := range s.ws.Protected() {
		if pfi, err := os.Stat(p); err == nil && os.SameFile(fi, pfi) {
			return fmt.Errorf("%s is a hard link to %s: %w", abs, p, s.ws.CheckWrite(p))
		}
	}
	return nil
}

// rewrite replaces the whole content of the open file f, keeping its
// permissions.
func rewrite(f *os.File, content string) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt([]byte(content), 0)
	return err
}

func lineCount(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
}

type editArgs struct {
	FilePath   string `json:"file_path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

// edit replaces exact text in a file: old_string must occur exactly once,
// or replace_all must be set.
func (s *Set) edit(ctx context.Context, a editArgs) (string, error) {
	if a.FilePath == "" {
		return "", errors.New("Edit needs file_path, old_string (the exact text to replace) and new_string")
	}
	if a.OldString == "" {
		return "", errors.New("old_string is empty: give the exact text to replace (to create a file, use Write)")
	}
	if a.OldString == a.NewString {
		return "", errors.New("old_string and new_string are the same, so the edit would change nothing")
	}
	abs, rel, err := s.writablePath(a.FilePath)
	if err != nil {
		return "", err
	}
	unlock, err := s.lockWrites(ctx)
	if err != nil {
		return "", err
	}
	defer unlock()
	f, _, err := s.openWrite(abs, rel, false, true, Edit)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s does not exist: create it with Write", abs)
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	if err := s.checkLinks(abs, f); err != nil {
		return "", err
	}
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("cannot read %s: %w", abs, unwrapPath(err))
	}
	b, err := readAtMost(f, fi.Size(), maxWriteBytes)
	if errors.Is(err, errTooLarge) {
		return "", fmt.Errorf("%s is larger than the %d MiB Edit works on: change it with Bash (sed, a script)", abs, maxWriteBytes>>20)
	}
	if err != nil {
		return "", fmt.Errorf("cannot read %s: %w", abs, unwrapPath(err))
	}
	old := string(b)
	n := strings.Count(old, a.OldString)
	switch {
	case n == 0:
		hint := "Read the file and copy the text exactly, with its white space and line ends"
		if strings.Contains(old, "\r\n") && !strings.Contains(a.OldString, "\r\n") && strings.Contains(a.OldString, "\n") {
			hint = "the file's lines end in \\r\\n, and old_string's in \\n"
		}
		return "", fmt.Errorf("old_string was not found in %s: %s", abs, hint)
	case n > 1 && !a.ReplaceAll:
		return "", fmt.Errorf("old_string occurs %d times in %s, so the edit is ambiguous: include more of the surrounding lines to make it unique, or set replace_all to replace every occurrence", n, abs)
	}
	line := strings.Count(old[:strings.Index(old, a.OldString)], "\n") + 1
	var updated string
	if a.ReplaceAll {
		updated = strings.ReplaceAll(old, a.OldString, a.NewString)
	} else {
		updated = strings.Replace(old, a.OldString, a.NewString, 1)
	}
	if len(updated) > maxWriteBytes {
		return "", fmt.Errorf("the edited %s would be %d bytes, more than the %d MiB Edit writes", abs, len(updated), maxWriteBytes>>20)
	}
	if err := rewrite(f, updated); err != nil {
		return "", fmt.Errorf("cannot write %s: %w", abs, unwrapPath(err))
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("cannot write %s: %w", abs, unwrapPath(err))
	}
	if n == 1 {
		return fmt.Sprintf("Edited %s: replaced 1 occurrence at line %d", abs, line), nil
	}
	return fmt.Sprintf("Edited %s: replaced %d occurrences (the first at line %d)", abs, n, line), nil
}
