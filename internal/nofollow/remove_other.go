//go:build !linux

package nofollow

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

func removeAll(base string, parts []string) error {
	name, err := check(base, parts[:len(parts)-1], false)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	return os.RemoveAll(filepath.Join(name, parts[len(parts)-1]))
}
