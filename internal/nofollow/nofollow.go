package nofollow

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrLink is the cause when a component below the base is a symbolic link
// (or, for a folder on the way, not a folder).
var ErrLink = errors.New("a symbolic link is in the way")

// ErrName is the cause when the relative name is absolute or leaves the
// base with "..".
var ErrName = errors.New("the name is not beneath its folder")

// split checks rel and returns its components.
func split(base, rel string) ([]string, error) {
	if filepath.IsAbs(rel) || rel == "" {
		return nil, &fs.PathError{Op: "open", Path: filepath.Join(base, rel), Err: ErrName}
	}
	clean := filepath.Clean(rel)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return nil, &fs.PathError{Op: "open", Path: filepath.Join(base, rel), Err: ErrName}
	}
	if clean == "." {
		return nil, nil
	}
	return strings.Split(clean, "/"), nil
}

// OpenFile opens base/rel with flag and perm (as os.OpenFile) without
// following a symbolic link in rel. A link fails with an error wrapping
// ErrLink; O_CREAT creates the last component only, never a folder on the
// way (MkdirAll does that).
func OpenFile(base, rel string, flag int, perm os.FileMode) (*os.File, error) {
	parts, err := split(base, rel)
	if err != nil {
		return nil, err
	}
	if len(parts) == 0 {
		return nil, &fs.PathError{Op: "open", Path: base, Err: ErrName}
	}
	return openFile(base, parts, flag, perm)
}

// OpenDir opens the folder base/rel (rel may be ".") without following a
// symbolic link in rel; the caller may use the descriptor with the *at
// system calls (renameat, unlinkat) to act inside it.
func OpenDir(base, rel string) (*os.File, error) {
	parts, err := split(base, rel)
	if err != nil {
		return nil, err
	}
	return openDir(base, parts)
}

// MkdirAll makes base/rel and every missing folder on the way with perm,
// refusing to follow a symbolic link at any component, and returns nil
// when it all exists already as folders.
func MkdirAll(base, rel string, perm os.FileMode) error {
	parts, err := split(base, rel)
	if err != nil {
		return err
	}
	return mkdirAll(base, parts, perm)
}

// ReadFile reads base/rel whole without following a symbolic link, and
// refuses anything but a regular file. It opens without blocking, so that a
// named pipe planted in the file's place is refused instead of holding the
// caller until someone writes to it.
func ReadFile(base, rel string) ([]byte, error) {
	f, err := OpenFile(base, rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s)", f.Name(), fi.Mode().Type())
	}
	return io.ReadAll(f)
}

// RemoveAll removes base/rel and, when it is a folder, everything beneath
// it, without following a symbolic link: a link on the way to rel fails
// with ErrLink, and a link inside the removed tree is removed as itself,
// never the file or folder it points at. A rel that does not exist is not
// an error.
func RemoveAll(base, rel string) error {
	parts, err := split(base, rel)
	if err != nil {
		return err
	}
	if len(parts) == 0 {
		return &fs.PathError{Op: "remove", Path: base, Err: ErrName}
	}
	return removeAll(base, parts)
}
