package nofollow

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// noOpenat2 records that the kernel answered openat2 with ENOSYS, so that
// later calls walk component by component at once.
var noOpenat2 atomic.Bool

const resolve = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS

func openFile(base string, parts []string, flag int, perm os.FileMode) (*os.File, error) {
	name := filepath.Join(append([]string{base}, parts...)...)
	flag |= unix.O_CLOEXEC | unix.O_NOFOLLOW
	mode := uint32(perm.Perm())
	how := &unix.OpenHow{Flags: uint64(flag), Resolve: resolve}
	if flag&unix.O_CREAT != 0 {
		how.Mode = uint64(mode) // openat2 refuses a mode without O_CREAT
	}
	if !noOpenat2.Load() {
		dir, err := unix.Open(base, unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_RDONLY, 0)
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: base, Err: err}
		}
		fd, err := unix.Openat2(dir, strings.Join(parts, "/"), how)
		unix.Close(dir)
		if err == nil {
			return os.NewFile(uintptr(fd), name), nil
		}
		if !errors.Is(err, unix.ENOSYS) {
			return nil, pathError(name, err)
		}
		noOpenat2.Store(true)
	}
	dir, err := openDir(base, parts[:len(parts)-1])
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	fd, err := unix.Openat(int(dir.Fd()), parts[len(parts)-1], flag, mode)
	if err != nil {
		return nil, pathError(name, err)
	}
	return os.NewFile(uintptr(fd), name), nil
}

// openDir opens base and then each part with O_NOFOLLOW|O_DIRECTORY.
func openDir(base string, parts []string) (*os.File, error) {
	fd, err := unix.Open(base, unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_RDONLY, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: base, Err: err}
	}
	name := base
	for _, p := range parts {
		name = filepath.Join(name, p)
		next, err := unix.Openat(fd, p, unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_RDONLY, 0)
		unix.Close(fd)
		if err != nil {
			return nil, pathError(name, err)
		}
		fd = next
	}
	return os.NewFile(uintptr(fd), name), nil
}

func mkdirAll(base string, parts []string, perm os.FileMode) error {
	fd, err := unix.Open(base, unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_RDONLY, 0)
	if err != nil {
		return &fs.PathError{Op: "mkdir", Path: base, Err: err}
	}
	defer func() { unix.Close(fd) }()
	name := base
	for _, p := range parts {
		name = filepath.Join(name, p)
		if err := unix.Mkdirat(fd, p, uint32(perm.Perm())); err != nil && !errors.Is(err, unix.EEXIST) {
			return &fs.PathError{Op: "mkdir", Path: name, Err: err}
		}
		next, err := unix.Openat(fd, p, unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_RDONLY, 0)
		if err != nil {
			return pathError(name, err)
		}
		unix.Close(fd)
		fd = next
	}
	return nil
}

// pathError names a link in the way as ErrLink: O_NOFOLLOW answers ELOOP
// for a link as the last component, O_DIRECTORY answers ENOTDIR for a link
// on the way, and openat2 answers ELOOP or EXDEV.
func pathError(name string, err error) error {
	switch {
	case errors.Is(err, unix.ELOOP), errors.Is(err, unix.EXDEV):
		return &fs.PathError{Op: "open", Path: name, Err: ErrLink}
	case errors.Is(err, unix.ENOTDIR):
		if fi, lerr := os.Lstat(name); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return &fs.PathError{Op: "open", Path: name, Err: ErrLink}
		}
	}
	return &fs.PathError{Op: "open", Path: name, Err: err}
}
