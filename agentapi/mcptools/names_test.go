package mcptools

import (
	"strings"
	"testing"
)

func TestToolNamesAreSanitisedAndBounded(t *testing.T) {
	long := strings.Repeat("x", 80)
	cases := []struct{ server, tool, want string }{
		{"calc", "add", "mcp__calc__add"},
		{"my server", "read.file", "mcp__my_server__read_file"},
		{"café", "naïve-tool", "mcp__caf___na_ve-tool"},
		{"calc", long, ("mcp__calc__" + long)[:64]},
	}
	for _, tc := range cases {
		got := toolName(tc.server, tc.tool, map[string]bool{})
		if got != tc.want {
			t.Errorf("toolName(%q, %q) = %q, want %q", tc.server, tc.tool, got, tc.want)
		}
		if len(got) > MaxNameLen {
			t.Errorf("%q is longer than %d", got, MaxNameLen)
		}
	}
}

func TestCollidingToolNamesGetANumericSuffix(t *testing.T) {
	taken := map[string]bool{}
	long := strings.Repeat("y", 80)
	got := []string{
		toolName("a.b", "add", taken),
		toolName("a_b", "add", taken),
		toolName("a b", "add", taken),
		toolName("s", long, taken),
		toolName("s", long+"z", taken),
	}
	want := []string{"mcp__a_b__add", "mcp__a_b__add_2", "mcp__a_b__add_3", ("mcp__s__" + long)[:64], ("mcp__s__" + long)[:62] + "_2"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("name %d = %q, want %q", i, got[i], want[i])
		}
	}
}
