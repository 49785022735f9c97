package acp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/wfrun/wfrun/internal/nofollow"
)

// The bounds of the fs methods. A read answer travels as one JSON-RPC line,
// which the agent's SDK reads into a bounded buffer (10 MiB in the Go SDK),
// and a model cannot use more anyway.
const (
	maxReadBytes  = 4 << 20  // the most fs/read_text_file returns
	maxWriteBytes = 16 << 20 // the most fs/write_text_file writes, as wfrun's Write tool
	binarySniff   = 8000     // bytes looked at to tell a binary file
)

// codeNotFound is ACP's JSON-RPC error code for a resource that does not
// exist.
const codeNotFound = -32002

// readFile serves fs/read_text_file: the file at p, which must resolve
// inside the child's root, from the 1-based line (default 1), at most
// limit lines (default all), at most maxReadBytes.
func (c *child) readFile(p string, line, limit *int) (string, error) {
	rel, abs, err := c.inRoot(p)
	if err != nil {
		return "", err
	}
	// Look, then open without blocking and look again at what was opened:
	// a named pipe would block open(2) until a writer came, which a hostile
	// child never sends, and a device is never opened at all.
	if fi, err := c.root.Stat(rel); err == nil {
		if err := onlyRegular("read", abs, fi); err != nil {
			return "", err
		}
	}
	f, err := c.root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0) // O_NONBLOCK changes nothing for a regular file
	if err != nil {
		return "", fileError("read", abs, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return "", fileError("read", abs, err)
	} else if err := onlyRegular("read", abs, fi); err != nil {
		return "", err
	}
	from, n := 1, -1
	if line != nil {
		if *line < 1 {
			return "", refusal("line is %d: lines are counted from 1", *line)
		}
		from = *line
	}
	if limit != nil {
		if *limit < 1 {
			return "", refusal("limit is %d: give a positive number of lines, or leave it out for the rest of the file", *limit)
		}
		n = *limit
	}
	r := bufio.NewReader(f)
	head, _ := r.Peek(binarySniff)
	if bytes.IndexByte(head, 0) >= 0 {
		return "", refusal("%s is a binary file, not a text file", abs)
	}
	var out strings.Builder
	for i := 1; n != 0; i++ {
		s, err := r.ReadString('\n')
		if i >= from && s != "" {
			if out.Len()+len(s) > maxReadBytes {
				return "", refusal("%s has more than %d MiB from line %d on: read it in parts with line and limit", abs, maxReadBytes>>20, from)
			}
			out.WriteString(s)
			if n > 0 {
				n--
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", fileError("read", abs, err)
		}
	}
	return out.String(), nil
}

// writeFile serves fs/write_text_file: it creates or replaces the file at
// p, which must resolve inside the child's root, creating its folders and
// keeping an existing file's permissions, where the sandbox mode lets the
// child write.
func (c *child) writeFile(p, content string) error {
	if !c.ws.Mode().CanWrite() {
		return refusal("the run's sandbox mode is %s, so the agent may not write files", c.ws.Mode())
	}
	if len(content) > maxWriteBytes {
		return refusal("the content is %d bytes, more than the %d MiB wfrun writes in one request", len(content), maxWriteBytes>>20)
	}
	rel, abs, err := c.inRoot(p)
	if err != nil {
		return err
	}
	if err := c.ws.CheckWrite(abs); err != nil {
		return refusal("%v", err)
	}
	if fi, err := c.root.Stat(rel); err == nil {
		if err := onlyRegular("write", abs, fi); err != nil {
			return err
		}
	}
	// The path written is Resolve's real path, without links: nofollow
	// refuses a link planted on the way since (one to .git/config, say).
	if dir := path.Dir(filepath.ToSlash(rel)); dir != "." {
		if err := nofollow.MkdirAll(c.ws.Root(), dir, 0o755); err != nil {
			return fileError("create the folders of", abs, err)
		}
	}
	// Not O_TRUNC: the file is truncated once fstat says it is a regular
	// file, never a pipe or device swapped in since the look.
	f, err := nofollow.OpenFile(c.ws.Root(), rel, os.O_WRONLY|os.O_CREATE|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		return fileError("write", abs, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return fileError("write", abs, err)
	} else if err := onlyRegular("write", abs, fi); err != nil {
		return err
	}
	err = f.Truncate(0)
	if err == nil {
		_, err = f.WriteAt([]byte(content), 0)
	}
	if err = errors.Join(err, f.Close()); err != nil {
		return fileError("write", abs, err)
	}
	return nil
}

// onlyRegular refuses, with a sentence, to read or write (verb) abs when
// fi says it is not a regular file.
func onlyRegular(verb, abs string, fi fs.FileInfo) error {
	m := fi.Mode()
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir() && verb == "read":
		return refusal("%s is a folder, not a text file: read a file inside it", abs)
	case m.IsDir():
		return refusal("%s is a folder: give the path of a file inside it", abs)
	}
	what := "not a regular file (" + m.Type().String() + ")"
	switch t := m.Type(); {
	case t&fs.ModeNamedPipe != 0:
		what = "a named pipe (FIFO), not a regular file"
	case t&fs.ModeSocket != 0:
		what = "a socket, not a regular file"
	case t&fs.ModeDevice != 0:
		what = "a device, not a regular file"
	}
	return refusal("%s is %s: wfrun %ss only regular files", abs, what, verb)
}

// inRoot resolves p (absolute, as ACP asks, or relative to the root) and
// returns it relative to the root, for os.Root, and absolute, for messages.
// A path outside the root is refused with workspace.Resolve's sentence.
func (c *child) inRoot(p string) (rel, abs string, err error) {
	abs, err = c.ws.Resolve(p)
	if err != nil {
		return "", "", refusal("%v", err)
	}
	return c.ws.Rel(abs), abs, nil
}

// fileError is the JSON-RPC error for a file operation that failed.
func fileError(verb, abs string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	if errors.Is(err, fs.ErrNotExist) {
		return &sdk.RequestError{Code: codeNotFound, Message: fmt.Sprintf("%s does not exist", abs)}
	}
	return refusal("cannot %s %s: %v", verb, abs, err)
}
