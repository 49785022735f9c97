package tools

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// How the tools open files. A child can put anything at a path it may
// write: a named pipe, whose open(2) blocks until a writer comes, a socket,
// a device, or a symbolic link swapped in after Resolve looked. So every
// open here is O_NONBLOCK (a FIFO opens at once, a socket fails with ENXIO)
// and is followed by fstat on the descriptor itself: anything but a regular
// file (or, for a walk, a folder) is refused before a byte is read or
// written. Once fstat has said "regular file", O_NONBLOCK is cleared: it
// changes nothing for a regular file, and the descriptor is then what an
// ordinary open would have returned.
//
// Reads go through the Set's os.Root, which follows links inside the
// workspace and refuses those pointing out. Writes walk from the root one
// component at a time with O_NOFOLLOW: the path they write is Resolve's
// real path, which has no link in it, so a link met on the way was planted
// after the check (for instance to point at .git/config) and is refused.

// kindOf names what a file that is not a regular file is.
func kindOf(m fs.FileMode) string {
	switch t := m.Type(); {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a folder"
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeCharDevice != 0:
		return "a character device"
	case t&fs.ModeDevice != 0:
		return "a block device"
	case t&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}

// errNotRegular says that abs is not a regular file, what it is, and that
// tool (Read, Write, …) works on regular files only.
func errNotRegular(abs string, m fs.FileMode, tool string) error {
	does := map[string]string{Read: "Read reads", Write: "Write writes", Edit: "Edit edits", Grep: "Grep searches"}[tool]
	if does == "" {
		does = tool + " reads"
	}
	what := kindOf(m)
	if what == "not a regular file" {
		return fmt.Errorf("%s is not a regular file (%s): %s only regular files", abs, m.Type(), does)
	}
	return fmt.Errorf("%s is %s, not a regular file: %s only regular files", abs, what, does)
}

// openRead opens rel, relative to the root, for reading without blocking.
// It returns the open file and its information when rel is a regular file;
// otherwise a nil file and what rel is (a folder, a FIFO, …) for the
// caller's sentence, without ever having opened a device or waited on a
// pipe. looked says the caller has just seen a regular file there (a
// walk's entry), which spares a stat.
func (s *Set) openRead(rel string, looked bool) (*os.File, fs.FileInfo, error) {
	// Look first, so that a device or socket is never opened at all; the
	// fstat below catches a file swapped in between.
	if !looked {
		fi, err := s.root.Stat(rel)
		if err != nil {
			return nil, nil, err
		}
		if !fi.Mode().IsRegular() {
			return nil, fi, nil
		}
	}
	f, err := s.root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ENXIO) { // a socket, swapped in since the look
		if fi, serr := s.root.Stat(rel); serr == nil {
			return nil, fi, nil
		}
	}
	if err != nil {
		return nil, nil, err
	}
	fi, err := regular(f)
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fi, err
	}
	return f, fi, nil
}

// regular stats the open f and, when it is a regular file, puts it back in
// blocking mode.
func regular(f *os.File) (fs.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return fi, err
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.SetNonblock(int(fd), false) }); err != nil {
		return nil, err
	}
	return fi, serr
}

// readRegular reads the regular file rel, relative to the root, up to max
// bytes (more is errTooLarge). A file that is not regular is an error
// naming what it is. looked is openRead's.
func (s *Set) readRegular(rel string, looked bool, max int64, tool string) ([]byte, error) {
	f, fi, err := s.openRead(rel, looked)
	if err != nil {
		return nil, err
	}
	if f == nil {
		return nil, errNotRegular(filepath.Join(s.ws.Root(), rel), fi.Mode(), tool)
	}
	defer f.Close()
	return readAtMost(f, fi.Size(), max)
}

// readFileOutside reads a regular file by its absolute path (a repository's
// ignore files above the root), the same way: never blocking on a pipe,
// never reading a device, at most max bytes.
func readFileOutside(abs string, max int64) ([]byte, error) {
	if fi, err := os.Stat(abs); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, errNotRegular(abs, fi.Mode(), "wfrun")
	}
	f, err := os.OpenFile(abs, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := regular(f)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errNotRegular(abs, fi.Mode(), "wfrun")
	}
	return readAtMost(f, fi.Size(), max)
}

// errTooLarge is the cause when a file is larger than a read accepts.
var errTooLarge = errors.New("the file is too large")

// readAtMost reads all of f, failing with errTooLarge past max bytes.
// size is what fstat said, a hint for the buffer.
func readAtMost(f *os.File, size, max int64) ([]byte, error) {
	if size > max {
		return nil, errTooLarge
	}
	b := make([]byte, 0, size+1)
	for {
		n, err := f.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
		if int64(len(b)) > max {
			return nil, errTooLarge
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // it grew since the stat: make room
		}
	}
}

// errLinkPlanted is the cause when a write meets a symbolic link where
// Resolve, moments before, found none.
var errLinkPlanted = errors.New("a link planted after the check is never followed")

// openWrite opens rel, relative to the root, for writing (O_WRONLY, or
// O_RDWR with rw), without following any symbolic link and without
// blocking; with create it makes the missing folders and the file. It
// returns the open regular file and whether it was created; abs names the
// path in errors, tool the tool. Its errors are whole sentences, except
// fs.ErrNotExist when the file is missing and create is not set.
//
// Nothing is truncated here: the caller truncates the file it got, once it
// knows the file is the one it meant.
func (s *Set) openWrite(abs, rel string, create, rw bool, tool string) (f *os.File, created bool, err error) {
	if rel == "." || rel == "" {
		return nil, false, errNotRegular(abs, fs.ModeDir, tool)
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	root, err := s.root.Open(".")
	if err != nil {
		return nil, false, err
	}
	defer root.Close()
	rootFd := int(root.Fd())
	dir := rootFd
	defer func() {
		if dir != rootFd {
			unix.Close(dir)
		}
	}()
	for i, p := range parts[:len(parts)-1] {
		next, err := openDir(dir, p, create)
		if err != nil {
			at := filepath.Join(append([]string{s.ws.Root()}, parts[:i+1]...)...)
			return nil, false, describe(at, err, "a folder", tool)
		}
		if dir != rootFd {
			unix.Close(dir)
		}
		dir = next
	}
	base := parts[len(parts)-1]
	var st unix.Stat_t
	switch err := unix.Fstatat(dir, base, &st, unix.AT_SYMLINK_NOFOLLOW); {
	case errors.Is(err, unix.ENOENT):
		if !create {
			return nil, false, fs.ErrNotExist
		}
		created = true
	case err != nil:
		return nil, false, describe(abs, err, "", tool)
	case !modeOf(st).IsRegular():
		return nil, false, describe(abs, notRegularErr(modeOf(st)), "", tool)
	}
	flags := unix.O_WRONLY
	if rw {
		flags = unix.O_RDWR
	}
	flags |= unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC
	if create {
		flags |= unix.O_CREAT
	}
	fd, err := openat(dir, base, flags, 0o644)
	if err != nil {
		// Something was swapped in since the look: say what.
		if errors.Is(err, unix.ENXIO) || errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EISDIR) {
			if unix.Fstatat(dir, base, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
				err = notRegularErr(modeOf(st))
			}
		}
		return nil, false, describe(abs, err, "", tool)
	}
	f = os.NewFile(uintptr(fd), abs)
	fi, err := regular(f)
	if err == nil && !fi.Mode().IsRegular() {
		err = errNotRegular(abs, fi.Mode(), tool)
	}
	if err != nil {
		f.Close()
		return nil, false, err
	}
	return f, created, nil
}

// notRegularType carries the mode of a file found where a regular file (or
// a folder) was wanted.
type notRegularType fs.FileMode

func (m notRegularType) Error() string { return kindOf(fs.FileMode(m)) }

func notRegularErr(m fs.FileMode) error { return notRegularType(m) }

// describe turns an error met at path at into a sentence: a planted link,
// something that is not what was wanted, or the system's own words.
func describe(at string, err error, want, tool string) error {
	var nr notRegularType
	switch {
	case errors.As(err, &nr) && fs.FileMode(nr)&fs.ModeSymlink != 0, errors.Is(err, unix.ELOOP):
		return fmt.Errorf("%s became a symbolic link after the path was checked, and %w: call %s again", at, errLinkPlanted, tool)
	case errors.As(err, &nr) && want == "":
		return errNotRegular(at, fs.FileMode(nr), tool)
	case errors.As(err, &nr):
		return fmt.Errorf("%s is %s, not %s", at, kindOf(fs.FileMode(nr)), want)
	}
	return fmt.Errorf("%s cannot use %s: %w", tool, at, unwrapPath(err))
}

// openDir opens the folder name in dir without following a link, creating
// it first when create is set and it does not exist.
func openDir(dir int, name string, create bool) (int, error) {
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC
	fd, err := openat(dir, name, flags, 0)
	if errors.Is(err, unix.ENOENT) && create {
		if err := unix.Mkdirat(dir, name, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
			return -1, err
		}
		fd, err = openat(dir, name, flags, 0)
	}
	if errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) {
		var st unix.Stat_t
		if unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
			return -1, notRegularErr(modeOf(st))
		}
	}
	return fd, err
}

// openat is unix.Openat retried on EINTR.
func openat(dir int, name string, flags int, perm uint32) (int, error) {
	for {
		fd, err := unix.Openat(dir, name, flags, perm)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// modeOf is the type bits of st as an fs.FileMode.
func modeOf(st unix.Stat_t) fs.FileMode {
	switch uint32(st.Mode) & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	}
	return fs.ModeIrregular
}
