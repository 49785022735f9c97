package flagvalue

import (
	"flag"
	"strings"
	"unicode/utf8"
)

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

// Section is a group of flags that several commands share, as the help
// lists it: a flag set of its own, named by its title, onto which bind
// defines the group.
func Section(title string, bind func(fs *flag.FlagSet)) *flag.FlagSet {
	fs := flag.NewFlagSet(title, flag.ContinueOnError)
	bind(fs)
	return fs
}

// InSection reports whether f is one of section's flags, with the same
// text.
func InSection(section *flag.FlagSet, f *flag.Flag) bool {
	s := section.Lookup(f.Name)
	return s != nil && s.Usage == f.Usage
}

// WriteSections writes the flags of fs under the titles of the sections
// that hold them, in the order of sections, then the others under
// "Flags"; each flag once, and no title without a flag under it.
func WriteSections(b *strings.Builder, fs *flag.FlagSet, sections []*flag.FlagSet) {
	printed := map[string]bool{}
	for _, s := range append(sections, nil) { // nil: the flags of no section
		title, first := "Flags", true
		if s != nil {
			title = s.Name()
		}
		fs.VisitAll(func(f *flag.Flag) {
			if printed[f.Name] || (s != nil && !InSection(s, f)) {
				return
			}
			if first {
				b.WriteString("\n" + title + ":\n")
				first = false
			}
			printed[f.Name] = true
			WriteFlag(b, f, "")
		})
	}
}

// WriteOwned writes the flags of sets that none of sections holds and
// skip does not name, each once however many sets take it (the same name
// and text), its text led by owners of the names of the sets that take
// it: names[i] names sets[i].
func WriteOwned(b *strings.Builder, sets []*flag.FlagSet, names []string, sections []*flag.FlagSet,
	skip map[string]bool, owners func(names []string) string) {
	taken := map[string][]string{}
	var own []*flag.Flag
	for i, fs := range sets {
		fs.VisitAll(func(f *flag.Flag) {
			if skip[f.Name] {
				return
			}
			for _, s := range sections {
				if InSection(s, f) {
					return
				}
			}
			key := f.Name + "\x00" + f.Usage
			if taken[key] == nil {
				own = append(own, f)
			}
			taken[key] = append(taken[key], names[i])
		})
	}
	for _, f := range own {
		WriteFlag(b, f, owners(taken[f.Name+"\x00"+f.Usage]))
	}
}
