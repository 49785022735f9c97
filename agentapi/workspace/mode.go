package workspace

import "fmt"

// Mode is a sandbox mode: what a child's tools and processes may change.
// The names are Codex's, which users already know. The zero value is not a
// mode; Config treats it as WorkspaceWrite.
type Mode string

// The sandbox modes, from the narrowest to the widest.
const (
	// ReadOnly: the file tools may read; processes run under Landlock with
	// nothing writable but a few device files such as /dev/null.
	ReadOnly Mode = "read-only"
	// WorkspaceWrite: the file tools may also write inside the root;
	// processes may write inside the root and a temp folder of their own.
	WorkspaceWrite Mode = "workspace-write"
	// DangerFullAccess: no OS sandbox at all. The file tools still stay
	// inside the root.
	DangerFullAccess Mode = "danger-full-access"
)

// Modes returns every mode, from the narrowest to the widest.
func Modes() []Mode { return []Mode{ReadOnly, WorkspaceWrite, DangerFullAccess} }

// ParseMode reads a mode from its name. An unknown name is an error that
// lists the modes.
func ParseMode(s string) (Mode, error) {
	m := Mode(s)
	if !m.Valid() {
		return "", fmt.Errorf("unknown sandbox mode %q: use read-only, workspace-write (the default) or danger-full-access", s)
	}
	return m, nil
}

// Valid reports whether m is one of the three modes.
func (m Mode) Valid() bool { return m.rank() >= 0 }

// rank orders the modes by what they allow; -1 is not a mode.
func (m Mode) rank() int {
	switch m {
	case ReadOnly:
		return 0
	case WorkspaceWrite:
		return 1
	case DangerFullAccess:
		return 2
	}
	return -1
}

// Narrow returns the narrower of m and o: a persona or a call may narrow
// a run's mode, never widen it. A value of o that is not a mode leaves m
// as it is.
func (m Mode) Narrow(o Mode) Mode {
	if o.Valid() && o.rank() < m.rank() {
		return o
	}
	return m
}

// Allows reports whether o is m or narrower than m.
func (m Mode) Allows(o Mode) bool { return o.Valid() && o.rank() <= m.rank() }

// CanWrite reports whether the file tools may write in this mode.
func (m Mode) CanWrite() bool { return m == WorkspaceWrite || m == DangerFullAccess }

// Sandboxed reports whether processes run under the OS sandbox in this mode.
func (m Mode) Sandboxed() bool { return m == ReadOnly || m == WorkspaceWrite }

// String returns the mode's name.
func (m Mode) String() string { return string(m) }

// MarshalText returns the mode's name; a value that is not a mode is an
// error.
func (m Mode) MarshalText() ([]byte, error) {
	if !m.Valid() {
		return nil, fmt.Errorf("%q is not a sandbox mode", string(m))
	}
	return []byte(m), nil
}

// UnmarshalText reads a mode's name, as ParseMode does.
func (m *Mode) UnmarshalText(b []byte) error {
	v, err := ParseMode(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}
