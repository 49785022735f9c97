package flagvalue

import (
	"flag"
	"fmt"
	"strings"
	"unicode/utf8"
)

// UnknownError is Parse's error for a flag the flag set does not define.
type UnknownError struct{ Name string }

func (e *UnknownError) Error() string { return "unknown flag --" + e.Name }

// Parse parses args with fs, whose flags may come before and after the
// positional arguments ("--" ends them), and returns the positional ones.
// Its errors are sentences: a flag fs does not define is an
// *UnknownError, a flag without its value says how to give one, and a
// value a flag refuses is that flag's own sentence.
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, reword(err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// reword rewrites the flag package's errors as sentences that say what to
// write instead.
func reword(err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		return &UnknownError{Name: strings.TrimLeft(name, "-")}
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		name = "--" + strings.TrimLeft(name, "-")
		return fmt.Errorf("%s needs a value: write %s VALUE or %s=VALUE", name, name, name)
	}
	// invalid value "x" for flag -name: the sentence of our flag.Value.
	if i := strings.Index(msg, " for flag -"); strings.HasPrefix(msg, "invalid value ") && i > 0 {
		if _, why, ok := strings.Cut(msg[i:], ": "); ok {
			return fmt.Errorf("%s", why)
		}
	}
	return err
}

// Closest returns the first of names that word is likely a typo of: within
// an edit distance of a third of the name's length, and at least 1; ""
// when none is.
func Closest(word string, names []string) string {
	for _, n := range names {
		if editDistance(word, n) <= max(1, len(n)/3) {
			return n
		}
	}
	return ""
}

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// The help's columns: where a flag's text starts, and the width prose
// wraps at.
const (
	FlagColumn = 25
	Width      = 80
)

// WriteFlag writes f as "  --name VALUE", then prefix and its text from
// FlagColumn, wrapped at Width. The value is named as flag.UnquoteUsage
// reads it (VALUE when the text names none).
func WriteFlag(b *strings.Builder, f *flag.Flag, prefix string) {
	value, text := flag.UnquoteUsage(f)
	if value == "value" {
		value = "VALUE"
	}
	head := "  --" + f.Name
	if value != "" {
		head += " " + value
	}
	WriteHanging(b, head, FlagColumn, prefix+text)
}

// WriteHanging writes head, then text from column col, wrapped at Width;
// a head too wide for the column gets a line of its own. A line of text
// that starts with two spaces is an example, kept as written.
func WriteHanging(b *strings.Builder, head string, col int, text string) {
	line := head
	if utf8.RuneCountInString(head) > col-2 && head != "" {
		b.WriteString(head + "\n")
		line = ""
	}
	for _, para := range strings.Split(text, "\n") {
		if strings.HasPrefix(para, "  ") {
			b.WriteString(padTo(line, col) + para + "\n")
			line = ""
			continue
		}
		words := strings.Fields(para)
		for len(words) > 0 {
			out := padTo(line, col) + words[0]
			words = words[1:]
			for len(words) > 0 && utf8.RuneCountInString(out)+1+utf8.RuneCountInString(words[0]) <= Width {
				out += " " + words[0]
				words = words[1:]
			}
			b.WriteString(out + "\n")
			line = ""
		}
	}
}

// padTo pads s with spaces to n columns.
func padTo(s string, n int) string {
	return s + strings.Repeat(" ", max(0, n-utf8.RuneCountInString(s)))
}
