package statedir

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"syscall"

	"github.com/wfrun/wfrun/internal/nofollow"
)

// Env is the variable that names the state folder outright.
const Env = "WFRUN_STATE_DIR"

// Dir returns the state folder's absolute path, as getenv (nil means
// os.Getenv) sees the variables: $WFRUN_STATE_DIR, else
// $XDG_STATE_HOME/wfrun, else ~/.local/state/wfrun. It makes nothing.
func Dir(getenv func(string) string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	abs := func(p, from string) (string, error) {
		if !filepath.IsAbs(p) {
			return "", fmt.Errorf("%s is %q, not an absolute path; set it to one (wfrun keeps its run keys there)", from, p)
		}
		return filepath.Clean(p), nil
	}
	if d := getenv(Env); d != "" {
		return abs(d, "$"+Env)
	}
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return abs(filepath.Join(d, "wfrun"), "$XDG_STATE_HOME")
	}
	home := getenv("HOME")
	if home == "" {
		if u, err := user.Current(); err == nil {
			home = u.HomeDir
		}
	}
	if home == "" {
		return "", fmt.Errorf("wfrun's state folder cannot be found: neither $%s, $XDG_STATE_HOME nor $HOME is set; set %s to a private folder outside every workspace", Env, Env)
	}
	return abs(filepath.Join(home, ".local", "state", "wfrun"), "the home folder")
}

// Make creates dir (Dir's answer) and then each sub-folder of it in subs,
// private to the user (0700), without following a symbolic link at dir or
// below it. It checks that dir and the sub-folders are this user's, and
// closes each sub-folder to others (chmod 0700) if it was open; dir itself
// is left as the user made it when it existed already.
func Make(dir string, subs ...string) error {
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return fmt.Errorf("cannot create the folder of wfrun's state folder: %w", err)
	}
	if err := nofollow.MkdirAll(parent, filepath.Base(dir), 0o700); err != nil {
		return fmt.Errorf("cannot create wfrun's state folder %s: %w", dir, err)
	}
	if err := private(parent, filepath.Base(dir), false); err != nil {
		return err
	}
	for _, s := range subs {
		if err := nofollow.MkdirAll(dir, s, 0o700); err != nil {
			if errors.Is(err, nofollow.ErrLink) {
				return fmt.Errorf("%s in wfrun's state folder is a symbolic link, which wfrun never follows; remove it: %w", s, err)
			}
			return fmt.Errorf("cannot create %s in wfrun's state folder: %w", s, err)
		}
		if err := private(dir, s, true); err != nil {
			return err
		}
	}
	return nil
}

// private checks that the folder base/rel belongs to this user and, with
// close, makes it 0700 if others may enter it.
func private(base, rel string, close bool) error {
	name := filepath.Join(base, rel)
	d, err := nofollow.OpenDir(base, rel)
	if err != nil {
		return fmt.Errorf("cannot open %s: %w", name, err)
	}
	defer d.Close()
	fi, err := d.Stat()
	if err != nil {
		return err
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%s belongs to another user (uid %d); set %s to a folder of your own", name, st.Uid, Env)
	}
	if close && fi.Mode().Perm()&0o077 != 0 {
		if err := d.Chmod(0o700); err != nil {
			return fmt.Errorf("%s is open to others (%v) and cannot be closed: %w", name, fi.Mode().Perm(), err)
		}
	}
	return nil
}
