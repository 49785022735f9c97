package flagvalue

import (
	"flag"
	"strings"
	"testing"
)

func TestWriteSectionsAndOwned(t *testing.T) {
	shared := func(fs *flag.FlagSet) { fs.String("shared", "", "the shared `X`") }
	sections := []*flag.FlagSet{Section("Shared", shared)}
	a := flag.NewFlagSet("a", flag.ContinueOnError)
	shared(a)
	a.Bool("own", false, "a's own")
	a.Bool("version", false, "skipped")
	b := flag.NewFlagSet("b", flag.ContinueOnError)
	b.Bool("own", false, "a's own")
	b.String("shared", "", "not the shared one")

	var out strings.Builder
	WriteSections(&out, a, sections)
	want := "\nShared:\n" + padTo("  --shared X", FlagColumn) + "the shared X\n\nFlags:\n" +
		"  --own                  a's own\n  --version              skipped\n"
	if out.String() != want {
		t.Errorf("WriteSections:\n%q\nwant\n%q", out.String(), want)
	}

	out.Reset()
	WriteOwned(&out, []*flag.FlagSet{a, b}, []string{"a", "b"}, sections, map[string]bool{"version": true},
		func(owners []string) string { return strings.Join(owners, "+") + ": " })
	want = "  --own                  a+b: a's own\n  --shared string        b: not the shared one\n"
	if out.String() != want {
		t.Errorf("WriteOwned:\n%q\nwant\n%q", out.String(), want)
	}
}
