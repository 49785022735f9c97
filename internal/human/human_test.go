package human_test

import (
	"testing"
	"time"

	"github.com/wfrun/wfrun/internal/human"
)

func TestCount(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 950: "950", 999: "999", 1000: "1.0k", 12_345: "12.3k", 999_949: "999.9k", 1_000_000: "1.0M", 4_500_000: "4.5M"} {
		if got := human.Count(n); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestAge(t *testing.T) {
	for d, want := range map[time.Duration]string{-3 * time.Second: "0s", 12 * time.Second: "12s", 5 * time.Minute: "5m",
		3 * time.Hour: "3h", 47 * time.Hour: "47h", 49 * time.Hour: "2d"} {
		if got := human.Age(d); got != want {
			t.Errorf("Age(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 agents", 1: "1 agent", 2: "2 agents"} {
		if got := human.Plural(n, "agent", "agents"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestNoun(t *testing.T) {
	if human.Noun(1, "child", "children") != "child" || human.Noun(3, "child", "children") != "children" || human.Noun(0, "child", "children") != "children" {
		t.Error("Noun does not agree with its count")
	}
}

func TestFirstLine(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"Reviews code.\nUse it for diffs.", 80, "Reviews code."},
		{"\n  Reviews code.  ", 80, "Reviews code."},
		{"  padded  \r\nsecond", 80, "padded"},
		{"\n \n", 80, ""},
		{"abcdef", 4, "abc…"},
		{"éééé", 4, "éééé"},
	} {
		if got := human.FirstLine(c.in, c.n); got != c.want {
			t.Errorf("FirstLine(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{512: "512 bytes", 1 << 20: "1 MiB", 64<<20 + 1: "65 MiB", 256 << 20: "256 MiB",
		1 << 30: "1 GiB", 3 << 29: "1.5 GiB", 4 << 30: "4 GiB"} {
		if got := human.Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestAnd(t *testing.T) {
	for _, c := range []struct {
		words []string
		want  string
	}{
		{nil, ""}, {[]string{"a"}, "a"}, {[]string{"a", "b"}, "a and b"}, {[]string{"a", "b", "c"}, "a, b and c"},
	} {
		if got := human.And(c.words); got != c.want {
			t.Errorf("And(%q) = %q, want %q", c.words, got, c.want)
		}
	}
}
