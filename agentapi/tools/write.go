package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
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
	abs, rel, err := s.path(a.FilePath)
	if err != nil {
		return "", err
	}
	s.writes.Lock()
	defer s.writes.Unlock()
	verb := "Created"
	if fi, err := s.root.Stat(rel); err == nil {
		if fi.IsDir() {
			return "", fmt.Errorf("%s is a folder: give the path of a file inside it", abs)
		}
		verb = "Overwrote"
	}
	if dir := path.Dir(rel); dir != "." {
		if err := s.root.MkdirAll(dir, 0o755); err != nil {
			return "", fmt.Errorf("cannot create the folders of %s: %w", abs, unwrapPath(err))
		}
	}
	if err := s.replace(rel, a.Content); err != nil {
		return "", fmt.Errorf("cannot write %s: %w", abs, unwrapPath(err))
	}
	return fmt.Sprintf("%s %s (%d bytes, %d lines)", verb, abs, len(a.Content), lineCount(a.Content)), nil
}

// replace writes content to rel, keeping an existing file's permissions.
func (s *Set) replace(rel, content string) error {
	f, err := s.root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = io.WriteString(f, content)
	return errors.Join(err, f.Close())
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
	abs, rel, err := s.path(a.FilePath)
	if err != nil {
		return "", err
	}
	s.writes.Lock()
	defer s.writes.Unlock()
	fi, err := s.root.Stat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s does not exist: create it with Write", abs)
	}
	if err != nil {
		return "", fmt.Errorf("cannot edit %s: %w", abs, unwrapPath(err))
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file, so it cannot be edited", abs)
	}
	if fi.Size() > maxWriteBytes {
		return "", fmt.Errorf("%s is %d bytes, more than the %d MiB Edit works on: change it with Bash (sed, a script)", abs, fi.Size(), maxWriteBytes>>20)
	}
	b, err := s.root.ReadFile(rel)
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
	if err := s.replace(rel, updated); err != nil {
		return "", fmt.Errorf("cannot write %s: %w", abs, unwrapPath(err))
	}
	if n == 1 {
		return fmt.Sprintf("Edited %s: replaced 1 occurrence at line %d", abs, line), nil
	}
	return fmt.Sprintf("Edited %s: replaced %d occurrences (the first at line %d)", abs, n, line), nil
}
