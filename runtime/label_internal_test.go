package runtime

import (
	"strings"
	"testing"
)

func TestDefaultLabel_IsThePromptsFirstNonEmptyLineCutAt48Runes(t *testing.T) {
	cases := []struct{ prompt, want string }{
		{"Audit the parser", "Audit the parser"},
		{"  padded  \nsecond", "padded"},
		{"\n\n \t\nthird line\nfourth", "third line"},
		{"last line\n", "last line"},
		{"\n \n", "agent"},
		{strings.Repeat("é", 60), strings.Repeat("é", 47) + "…"},
	}
	for _, tc := range cases {
		if got := defaultLabel(tc.prompt); got != tc.want {
			t.Errorf("defaultLabel(%q) = %q, want %q", tc.prompt, got, tc.want)
		}
	}
}
