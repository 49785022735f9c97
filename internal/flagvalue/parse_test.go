package flagvalue

import (
	"errors"
	"flag"
	"io"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		positional []string
		err        string
		unknown    string // the name an *UnknownError carries
	}{
		{args: []string{"a.js", "--n", "3", "b"}, positional: []string{"a.js", "b"}},
		{args: []string{"--n=3", "a.js", "--", "--n", "x"}, positional: []string{"a.js", "--n", "x"}},
		{args: []string{"--n"}, err: "--n needs a value: write --n VALUE or --n=VALUE"},
		{args: []string{"a.js", "--n", "0"}, err: `--n: "0" is not a positive whole number; write one like --n 4`},
		{args: []string{"--nope", "1"}, err: "unknown flag --nope", unknown: "nope"},
		{args: nil},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var n int
		Count(fs, &n, "n", "4", "")
		positional, err := Parse(fs, tc.args)
		var unknown *UnknownError
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%v: %v", tc.args, err)
		case tc.err != "" && (err == nil || err.Error() != tc.err):
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.err)
		case tc.unknown != "" && (!errors.As(err, &unknown) || unknown.Name != tc.unknown):
			t.Errorf("%v: error %#v, want an UnknownError naming %s", tc.args, err, tc.unknown)
		case !reflect.DeepEqual(positional, tc.positional):
			t.Errorf("%v: positional %q, want %q", tc.args, positional, tc.positional)
		}
	}
}

func TestClosest(t *testing.T) {
	names := []string{"run", "check", "resume", "retry"}
	for word, want := range map[string]string{"chek": "check", "chekc": "", "rn": "run", "resme": "resume", "retr": "retry", "deploy": "", "": ""} {
		if got := Closest(word, names); got != want {
			t.Errorf("Closest(%q) = %q, want %q", word, got, want)
		}
	}
}

func TestWriteFlag(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	var s string
	Text(fs, &s, "workspace", "the `DIR` the agents work in, which is a folder that holds the files the agents read and the files they write:\n  --workspace ~/src/app")
	Text(fs, &s, "a-very-long-flag-name", "one")
	fs.Bool("b", false, "a switch")
	var b strings.Builder
	fs.VisitAll(func(f *flag.Flag) { WriteFlag(&b, f, "") })
	want := `  --a-very-long-flag-name VALUE
                         one
  -b                     a switch
  --workspace DIR        the DIR the agents work in, which is a folder that
                         holds the files the agents read and the files they
                         write:
                           --workspace ~/src/app
`
	want = strings.Replace(want, "  -b ", "  --b", 1)
	if b.String() != want {
		t.Errorf("WriteFlag wrote\n%s\nwant\n%s", b.String(), want)
	}
}
