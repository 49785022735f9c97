package tools

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/wfrun/wfrun/internal/nofollow"
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
// workspace and refuses those pointing out. Writes open through
// internal/nofollow, which follows no link at all: the path they write is
// Resolve's real path, which has no link in it, so a link met on the way
// was planted after the check (for instance to point at .git/config) and
// is refused.

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

// openWrite opens rel, relative to the root, for writing (O_WRONLY, or
// O_RDWR with rw), without following any symbolic link (internal/nofollow)
// and without blocking; with create it makes the missing folders and the
// file. It returns the open regular file and whether it was created; abs
// names the path in errors, tool the tool. Its errors are whole sentences,
// except fs.ErrNotExist when the file is missing and create is not set.
//
// Nothing is truncated here: the caller truncates the file it got, once it
// knows the file is the one it meant.
func (s *Set) openWrite(abs, rel string, create, rw bool, tool string) (f *os.File, created bool, err error) {
	if rel == "." || rel == "" {
		return nil, false, errNotRegular(abs, fs.ModeDir, tool)
	}
	// Look first, so that what is not a regular file is never opened. The
	// look has no effect and cannot block, so it may follow a link planted
	// on the way: the open below refuses any link, and fstat catches
	// anything else swapped in since.
	switch fi, err := os.Lstat(abs); {
	case errors.Is(err, fs.ErrNotExist):
		if !create {
			return nil, false, fs.ErrNotExist
		}
		created = true
	case err != nil:
		return nil, false, writeError(abs, err, tool)
	case !fi.Mode().IsRegular():
		return nil, false, refuseMode(abs, fi.Mode(), tool)
	}
	if s.testHookLooked != nil {
		s.testHookLooked()
	}
	flags := os.O_WRONLY
	if rw {
		flags = os.O_RDWR
	}
	flags |= syscall.O_NONBLOCK
	if create {
		flags |= os.O_CREATE
		if dir := filepath.Dir(rel); dir != "." {
			if err := nofollow.MkdirAll(s.ws.Root(), dir, 0o755); err != nil {
				return nil, false, writeError(abs, err, tool)
			}
		}
	}
	f, err = nofollow.OpenFile(s.ws.Root(), rel, flags, 0o644)
	if errors.Is(err, syscall.ENXIO) || errors.Is(err, syscall.EISDIR) {
		// A socket, a FIFO without a reader or a folder, swapped in since
		// the look: say what.
		if fi, lerr := os.Lstat(abs); lerr == nil && !fi.Mode().IsRegular() {
			return nil, false, refuseMode(abs, fi.Mode(), tool)
		}
	}
	if err != nil {
		return nil, false, writeError(abs, err, tool)
	}
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

// refuseMode is the sentence for writing abs, found to be m: a link (which
// Resolve would have followed, so it was planted since) or something that
// is not a regular file.
func refuseMode(abs string, m fs.FileMode, tool string) error {
	if m&fs.ModeSymlink != 0 {
		return writeError(abs, nofollow.ErrLink, tool)
	}
	return errNotRegular(abs, m, tool)
}

// writeError turns an error of openWrite into a sentence: a planted link,
// or the system's own words naming the path.
func writeError(abs string, err error, tool string) error {
	var pe *fs.PathError
	switch {
	case errors.Is(err, nofollow.ErrLink):
		at := abs
		if errors.As(err, &pe) && filepath.IsAbs(pe.Path) {
			at = pe.Path
		}
		return fmt.Errorf("%s was checked, but a symbolic link has since appeared at %s, and a link planted after the check is never followed (%w): call %s again", abs, at, nofollow.ErrLink, tool)
	case errors.As(err, &pe) && pe.Path != abs && filepath.IsAbs(pe.Path):
		return fmt.Errorf("%s cannot use %s: %w", tool, pe.Path, pe.Err)
	}
	return fmt.Errorf("%s cannot use %s: %w", tool, abs, unwrapPath(err))
}
