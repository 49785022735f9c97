package journal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// A live run holds an exclusive flock(2) on its folder's lock file for its
// whole life. The kernel releases it when the process dies, however it
// dies, so another process on the same host can tell at once that a run
// whose lock is free is no longer run by anyone. The lock proves nothing
// on its own (a child may replace the file, and some file systems ignore
// flock): the engine also asks whether the run's process is gone.

// ErrLocked is the cause when another process holds a run's lock.
var ErrLocked = errors.New("another process holds the run's lock")

// Lock is a held run lock.
type Lock struct{ f *os.File }

// Lock takes the folder's lock, creating its file without following a
// link. A lock another process holds is an error wrapping ErrLocked: it
// is retried for a moment first, since a process asking whether the run
// is alive (LockFree) holds it for an instant.
func (f *Folder) Lock() (*Lock, error) {
	file, err := f.open(LockFile, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot open the run's lock file: %w", err)
	}
	for try := 0; ; try++ {
		err = flock(file, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return &Lock{f: file}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) || try == 50 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	file.Close()
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return nil, fmt.Errorf("%s: %w", f.Path(LockFile), ErrLocked)
	}
	return nil, fmt.Errorf("cannot lock %s: %w", f.Path(LockFile), err)
}

// Release releases the lock. It is safe to call more than once.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the only descriptor releases the flock
	l.f = nil
	return err
}

// LockFree reports whether no process holds the folder's lock. known is
// false when that cannot be told: the lock file is a link or not a
// regular file, or the file system refuses flock. A missing lock file is
// free (the run was written before run locks, or the file was removed).
func (f *Folder) LockFree() (free, known bool) {
	file, err := f.open(LockFile, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return true, true
	}
	if err != nil {
		return false, false
	}
	defer file.Close()
	switch err := flock(file, syscall.LOCK_SH|syscall.LOCK_NB); {
	case err == nil:
		_ = flock(file, syscall.LOCK_UN)
		return true, true
	case errors.Is(err, syscall.EWOULDBLOCK):
		return false, true
	}
	return false, false
}

func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}
