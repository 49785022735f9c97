package main

import (
	"fmt"
	"slices"
	"strings"
)

// median returns the middle of xs (the mean of the two middles for an even
// count); 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// spread is the median, minimum and maximum of a set of paired ratios.
type spread struct{ med, lo, hi float64 }

func spreadOf(xs []float64) spread {
	if len(xs) == 0 {
		return spread{}
	}
	return spread{median(xs), slices.Min(xs), slices.Max(xs)}
}

// formatDuration prints microseconds in the unit that suits them.
func formatDuration(us float64) string {
	switch {
	case us >= 1e6:
		return fmt.Sprintf("%.2f s", us/1e6)
	case us >= 1e3:
		return fmt.Sprintf("%.1f ms", us/1e3)
	case us >= 100:
		return fmt.Sprintf("%.0f µs", us)
	default:
		return fmt.Sprintf("%.2f µs", us)
	}
}

// formatRatio prints how many times faster (or smaller) wfrun is: above 1
// it is ahead, below 1 behind.
func formatRatio(r float64) string {
	switch {
	case r <= 0:
		return "—"
	case r >= 1:
		return fmt.Sprintf("%s×", groupDigits(r))
	default:
		return fmt.Sprintf("%.2f× (%.1f× slower)", r, 1/r)
	}
}

// formatCount prints a count with thousands separators.
func formatCount(n int) string {
	if n < 100 {
		return fmt.Sprint(n)
	}
	return groupDigits(float64(n))
}

// groupDigits prints x with thousands separators, to 3 significant digits
// below 100.
func groupDigits(x float64) string {
	if x < 10 {
		return fmt.Sprintf("%.2f", x)
	}
	if x < 100 {
		return fmt.Sprintf("%.1f", x)
	}
	s := fmt.Sprintf("%.0f", x)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
