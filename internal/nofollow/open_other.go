//go:build !linux

package nofollow

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Elsewhere the walk checks each component with Lstat before it opens it:
// weaker against a race, but no platform other than Linux runs sandboxed
// children.

func check(base string, parts []string, last bool) (string, error) {
	name := base
	for i, p := range parts {
		name = filepath.Join(name, p)
		fi, err := os.Lstat(name)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && last && i == len(parts)-1 {
				return name, nil
			}
			return name, err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return name, &fs.PathError{Op: "open", Path: name, Err: ErrLink}
		}
	}
	return name, nil
}

func openFile(base string, parts []string, flag int, perm os.FileMode) (*os.File, error) {
	name, err := check(base, parts, true)
	if err != nil {
		return nil, err
	}
	return os.OpenFile(name, flag, perm)
}

func openDir(base string, parts []string) (*os.File, error) {
	name, err := check(base, parts, false)
	if err != nil {
		return nil, err
	}
	return os.Open(name)
}

func mkdirAll(base string, parts []string, perm os.FileMode) error {
	name := base
	for _, p := range parts {
		name = filepath.Join(name, p)
		if err := os.Mkdir(name, perm); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		if fi, err := os.Lstat(name); err != nil {
			return err
		} else if !fi.IsDir() {
			return &fs.PathError{Op: "mkdir", Path: name, Err: ErrLink}
		}
	}
	return nil
}
