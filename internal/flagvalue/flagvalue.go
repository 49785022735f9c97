package flagvalue

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Func is a flag.Value whose Set runs the function; String is empty, so
// the help shows no default.
type Func func(string) error

// Set parses s.
func (v Func) Set(s string) error { return v(s) }

// String returns "".
func (v Func) String() string { return "" }

// NonEmpty is the Func of the flag --name: an empty or blank value is
// refused with a sentence, any other goes to parse.
func NonEmpty(name string, parse func(string) error) Func {
	return func(s string) error {
		if strings.TrimSpace(s) == "" {
			return fmt.Errorf("--%s is empty; give it a value or leave it out", name)
		}
		return parse(s)
	}
}

// Text binds a string flag that may not be empty.
func Text(fs *flag.FlagSet, p *string, name, usage string) {
	fs.Var(NonEmpty(name, func(s string) error { *p = s; return nil }), name, usage)
}

// List binds a repeatable string flag; check, when not nil, vets each
// value and its error is the refusal.
func List(fs *flag.FlagSet, p *[]string, name, usage string, check func(string) error) {
	fs.Var(NonEmpty(name, func(s string) error {
		if check != nil {
			if err := check(s); err != nil {
				return err
			}
		}
		*p = append(*p, s)
		return nil
	}), name, usage)
}

// Count binds a positive whole number; example is a good value, for the
// refusal.
func Count[T int | int64](fs *flag.FlagSet, p *T, name, example, usage string) {
	fs.Var(NonEmpty(name, func(s string) error {
		n, err := PositiveInt(name, s, example)
		*p = T(n)
		return err
	}), name, usage)
}

// Size binds a size in bytes (see ByteSize).
func Size(fs *flag.FlagSet, p *int64, name, example, usage string) {
	fs.Var(NonEmpty(name, func(s string) (err error) { *p, err = ByteSize(name, s, example); return err }), name, usage)
}

// Duration binds a positive Go duration.
func Duration(fs *flag.FlagSet, p *time.Duration, name, example, usage string) {
	fs.Var(NonEmpty(name, func(s string) (err error) { *p, err = PositiveDuration(name, s, example); return err }), name, usage)
}

// Given returns the names of the flags set explicitly in fs.
func Given(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// PositiveInt parses raw, the value of --name, as a positive whole number.
func PositiveInt(name, raw, example string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(raw))
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("--%s: %q is not a positive whole number; write one like --%s %s", name, raw, name, example)
	}
	return n, nil
}

// ByteSize parses a size: a whole number of bytes, or one with a unit
// (KiB, MiB, GiB, or K, M, G, KB, MB, GB as their binary multiples).
func ByteSize(name, raw, example string) (int64, error) {
	s := strings.TrimSpace(raw)
	i := strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	num, unit := s, ""
	if i >= 0 {
		num, unit = s[:i], strings.ToUpper(strings.TrimSpace(s[i:]))
	}
	n, err := strconv.ParseInt(num, 10, 64)
	shift, known := map[string]uint{"": 0, "B": 0, "K": 10, "KB": 10, "KIB": 10, "M": 20, "MB": 20, "MIB": 20, "G": 30, "GB": 30, "GIB": 30}[unit]
	if err != nil || !known || n <= 0 || n > (1<<62)>>shift {
		return 0, fmt.Errorf("--%s: %q is not a size; write bytes or a number with a unit, like --%s %s or 1GiB", name, raw, name, example)
	}
	return n << shift, nil
}

// PositiveDuration parses raw, the value of --name, as a positive Go
// duration; a bare number is refused with a hint that it needs a unit.
func PositiveDuration(name, raw, example string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(raw))
	if err != nil {
		hint := ""
		if _, numErr := strconv.Atoi(strings.TrimSpace(raw)); numErr == nil {
			hint = " (a duration needs a unit)"
		}
		return 0, fmt.Errorf("--%s: %q is not a duration%s; write a Go duration like --%s %s, 90s or 1h30m", name, raw, hint, name, example)
	}
	if d <= 0 {
		return 0, fmt.Errorf("--%s: %s is not positive; write a duration like --%s %s", name, raw, name, example)
	}
	return d, nil
}

// BoolText is a flag that may be given alone (--tls, meaning true) or
// with a value (--tls=false), as the Temporal CLI's --tls; it keeps the
// text, "" when not given.
type BoolText string

// String returns the text.
func (b *BoolText) String() string { return string(*b) }

// Set keeps v.
func (b *BoolText) Set(v string) error { *b = BoolText(v); return nil }

// IsBoolFlag lets the flag be given alone.
func (b *BoolText) IsBoolFlag() bool { return true }
