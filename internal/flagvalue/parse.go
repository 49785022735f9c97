package flagvalue

import (
	"flag"
	"fmt"
	"strings"
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
