// Package human renders numbers and spans the way wfrun shows them to
// people: token counts as 12.3k, sizes as 64 MiB, ages as 5m, counted nouns as "2 agents",
// a list as "a, b and c", a description as its first line in one cell. The progress line,
// `wfrun runs`, the workflow tool's results, the page and the providers'
// sentences all say them alike because they all say them here.
//
// It owns only formatting: it reads no clock and no locale. It imports
// nothing of wfrun's, so every package may use it.
package human

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Count renders 950, 12.3k, 4.5M.
func Count(n int64) string {
	switch {
	case n < 1000:
		return strconv.FormatInt(n, 10)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}

// Bytes renders a size the way memory limits are said: whole GiB when it
// is a whole number of them (1 GiB), tenths of GiB above one (1.5 GiB),
// MiB rounded up above one MiB (64 MiB), else bytes.
func Bytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", (n+(1<<20)-1)>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Age renders how long ago, the way a listing does: 12s, 5m, 3h, 2d. A
// negative span (a clock that moved back) is 0s.
func Age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(int(d.Seconds()), 0))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// Plural renders n with the noun that agrees with it: "1 agent",
// "2 agents", "0 agents".
func Plural(n int, one, many string) string {
	return strconv.Itoa(n) + " " + Noun(n, one, many)
}

// Noun is the form of a noun that agrees with n: one when n is 1, else
// many.
func Noun(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// FirstLine is the first line of s that is not blank, trimmed, cut to at
// most n characters with an ellipsis: a description or an error in one
// cell of a listing, a label made from a prompt. "" when s is blank.
func FirstLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// And joins words as a sentence does: "a", "a and b", "a, b and c".
func And(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
