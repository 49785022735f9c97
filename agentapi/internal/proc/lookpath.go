package proc

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotExecutable is the cause when a program names a file that cannot
// run (a folder, or a file without an execute bit).
var ErrNotExecutable = errors.New("not an executable file")

// LookPath finds a program the way a shell would, but with the child's own
// environment (its PATH) and relative to the child's working directory dir
// ("" is the caller's): a name with a slash is a path, read from dir; any
// other name is searched in PATH, whose relative entries are read from dir
// too. The result is absolute, because exec would read a relative path from
// dir a second time. A name found nowhere is fs.ErrNotExist.
func LookPath(name, dir string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		p, err := absIn(dir, name)
		if err != nil {
			return "", err
		}
		return p, executable(p)
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		p, err := absIn(dir, filepath.Join(d, name))
		if err == nil && executable(p) == nil {
			return p, nil
		}
	}
	return "", fs.ErrNotExist
}

func executable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return ErrNotExecutable
	}
	return nil
}

func absIn(dir, p string) (string, error) {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return filepath.Abs(p)
}
