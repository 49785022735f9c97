package workspace

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseModeKnowsTheThreeModesAndListsThemOnError(t *testing.T) {
	t.Parallel()
	for _, m := range Modes() {
		got, err := ParseMode(string(m))
		if err != nil || got != m {
			t.Errorf("ParseMode(%q) = %q, %v", m, got, err)
		}
	}
	for _, bad := range []string{"", "readonly", "Read-Only", "full", "workspace_write"} {
		_, err := ParseMode(bad)
		if err == nil {
			t.Errorf("ParseMode(%q) accepted it", bad)
			continue
		}
		for _, m := range Modes() {
			if !strings.Contains(err.Error(), string(m)) {
				t.Errorf("ParseMode(%q): the error %q does not list %s", bad, err, m)
			}
		}
	}
}

func TestNarrowNeverWidens(t *testing.T) {
	t.Parallel()
	cases := []struct{ run, by, want Mode }{
		{DangerFullAccess, ReadOnly, ReadOnly},
		{DangerFullAccess, WorkspaceWrite, WorkspaceWrite},
		{WorkspaceWrite, ReadOnly, ReadOnly},
		{WorkspaceWrite, DangerFullAccess, WorkspaceWrite},
		{ReadOnly, DangerFullAccess, ReadOnly},
		{ReadOnly, WorkspaceWrite, ReadOnly},
		{WorkspaceWrite, "", WorkspaceWrite},
		{WorkspaceWrite, "nonsense", WorkspaceWrite},
	}
	for _, c := range cases {
		if got := c.run.Narrow(c.by); got != c.want {
			t.Errorf("%s.Narrow(%q) = %s, want %s", c.run, c.by, got, c.want)
		}
		if c.by.Valid() && c.run.Allows(c.by) != (c.run.Narrow(c.by) == c.by) {
			t.Errorf("%s.Allows(%s) disagrees with Narrow", c.run, c.by)
		}
	}
}

func TestModeJSONIsItsName(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(struct{ M Mode }{ReadOnly})
	if err != nil || string(b) != `{"M":"read-only"}` {
		t.Fatalf("got %s, %v", b, err)
	}
	var v struct{ M Mode }
	if err := json.Unmarshal([]byte(`{"M":"danger-full-access"}`), &v); err != nil || v.M != DangerFullAccess {
		t.Fatalf("got %q, %v", v.M, err)
	}
	if err := json.Unmarshal([]byte(`{"M":"yolo"}`), &v); err == nil {
		t.Fatal("an unknown mode was accepted from JSON")
	}
	if _, err := json.Marshal(struct{ M Mode }{"yolo"}); err == nil {
		t.Fatal("an unknown mode was marshalled")
	}
}

func TestModeCapabilities(t *testing.T) {
	t.Parallel()
	cases := []struct {
		m                  Mode
		canWrite, sandboxd bool
	}{
		{ReadOnly, false, true},
		{WorkspaceWrite, true, true},
		{DangerFullAccess, true, false},
	}
	for _, c := range cases {
		if c.m.CanWrite() != c.canWrite || c.m.Sandboxed() != c.sandboxd {
			t.Errorf("%s: CanWrite %v Sandboxed %v", c.m, c.m.CanWrite(), c.m.Sandboxed())
		}
	}
}
