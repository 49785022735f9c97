package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrOutside is the cause of every error for a path that resolves outside
// the workspace; test for it with errors.Is.
var ErrOutside = errors.New("the path is outside the workspace")

// maxSymlinks is how many symbolic links one resolution may follow, as
// Linux's own limit (MAXSYMLINKS): more means a loop.
const maxSymlinks = 40

// Resolve returns the real, absolute path that p names, and an error if it
// lies outside the workspace.
//
// A relative p is read from the root; "~" is not expanded (it is a folder
// named "~"). Every symbolic link is followed, also when the path does not
// exist yet: the existing part is resolved and the rest appended, so that a
// file about to be created through a link that points out is refused
// before it exists. "..", applied after the links before it as the kernel
// applies it, may pass outside the root and come back: only where the path
// ends counts.
//
// Resolve checks names, not open files: a process that swaps a folder for a
// link between Resolve and the open is not its concern. The tools of
// agentapi/tools open files through os.Root, which refuses such an escape
// at open time, and sandboxed processes are confined by the kernel.
func (w *Workspace) Resolve(p string) (string, error) {
	real, err := resolve(w.root, p)
	if err != nil {
		return "", err
	}
	if !within(w.root, real) {
		how, lexical := "", p
		if !filepath.IsAbs(p) {
			lexical = filepath.Join(w.root, p)
		}
		if real != filepath.Clean(lexical) {
			how = " (it resolves to " + real + ")"
		}
		return "", fmt.Errorf("%s is outside the workspace %s%s: use a path inside it: %w", p, w.root, how, ErrOutside)
	}
	return real, nil
}

// Rel returns the path of real (a result of Resolve) relative to the root,
// "." for the root itself.
func (w *Workspace) Rel(real string) string {
	rel, err := filepath.Rel(w.root, real)
	if err != nil {
		return real
	}
	return rel
}

// within reports whether p is root or inside it; both are clean and
// absolute.
func within(root, p string) bool {
	if root == "/" {
		return true
	}
	return p == root || strings.HasPrefix(p, root+string(filepath.Separator))
}

// resolve follows p from root component by component, as the kernel would,
// and returns the real absolute path; components that do not exist are
// kept as they are written.
func resolve(root, p string) (string, error) {
	if p == "" {
		return "", errors.New("the path is empty: give a file or folder inside the workspace")
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", fmt.Errorf("the path %q contains a NUL byte: give a file or folder inside the workspace", p)
	}
	cur := "/"
	rest := p
	if !filepath.IsAbs(p) {
		cur = root
	}
	links := 0
	for rest != "" {
		var part string
		part, rest, _ = strings.Cut(rest, "/")
		switch part {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, part)
		fi, err := os.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			cur = next // not there (yet): nothing to follow
			continue
		case errors.Is(err, syscall.ENOTDIR):
			return "", fmt.Errorf("%s: %s is not a folder", p, cur)
		case err != nil:
			return "", fmt.Errorf("cannot resolve %s: %w", p, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > maxSymlinks {
			return "", fmt.Errorf("cannot resolve %s: more than %d symbolic links, probably a loop", p, maxSymlinks)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("cannot resolve %s: %w", p, err)
		}
		if filepath.IsAbs(target) {
			cur = "/"
		}
		if rest != "" {
			target += "/" + rest
		}
		rest = target
	}
	return cur, nil
}
