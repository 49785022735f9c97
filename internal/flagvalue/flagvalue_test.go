package flagvalue

import (
	"flag"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
)

// parse binds the flags of bind on a fresh set and parses args.
func parse(bind func(fs *flag.FlagSet), args ...string) (*flag.FlagSet, error) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	bind(fs)
	return fs, fs.Parse(args)
}

func TestValues(t *testing.T) {
	var (
		text  string
		list  []string
		n     int
		n64   int64
		size  int64
		d     time.Duration
		tls   BoolText
		other bool
	)
	bind := func(fs *flag.FlagSet) {
		Text(fs, &text, "text", "")
		List(fs, &list, "list", "", func(s string) error {
			if strings.HasPrefix(s, "bad") {
				return io.ErrUnexpectedEOF
			}
			return nil
		})
		Count(fs, &n, "n", "4", "")
		Count(fs, &n64, "n64", "200000", "")
		Size(fs, &size, "size", "512MiB", "")
		Duration(fs, &d, "d", "10m", "")
		fs.Var(&tls, "tls", "")
		fs.BoolVar(&other, "other", false, "")
	}
	for _, tc := range []struct {
		args []string
		want any // the value read back, when err is ""
		got  func() any
		err  string // a part of the refusal
	}{
		{[]string{"--text", "a b"}, "a b", func() any { return text }, ""},
		{[]string{"--text", " "}, nil, nil, "--text is empty; give it a value or leave it out"},
		{[]string{"--list", "a", "--list=b"}, []string{"a", "b"}, func() any { return list }, ""},
		{[]string{"--list", "bad1"}, nil, nil, "unexpected EOF"},
		{[]string{"--n", "7"}, 7, func() any { return n }, ""},
		{[]string{"--n", "0"}, nil, nil, `--n: "0" is not a positive whole number; write one like --n 4`},
		{[]string{"--n", "x"}, nil, nil, "not a positive whole number"},
		{[]string{"--n64", "300000"}, int64(300000), func() any { return n64 }, ""},
		{[]string{"--size", "2048"}, int64(2048), func() any { return size }, ""},
		{[]string{"--size", "512MiB"}, int64(512 << 20), func() any { return size }, ""},
		{[]string{"--size", "1 gb"}, int64(1 << 30), func() any { return size }, ""},
		{[]string{"--size", "3k"}, int64(3 << 10), func() any { return size }, ""},
		{[]string{"--size", "5TB"}, nil, nil, `--size: "5TB" is not a size; write bytes or a number with a unit, like --size 512MiB or 1GiB`},
		{[]string{"--size", "0"}, nil, nil, "is not a size"},
		{[]string{"--size", "99999999999G"}, nil, nil, "is not a size"},
		{[]string{"--d", "90s"}, 90 * time.Second, func() any { return d }, ""},
		{[]string{"--d", "90"}, nil, nil, `--d: "90" is not a duration (a duration needs a unit); write a Go duration like --d 10m, 90s or 1h30m`},
		{[]string{"--d", "soon"}, nil, nil, `"soon" is not a duration;`},
		{[]string{"--d", "-1s"}, nil, nil, "--d: -1s is not positive; write a duration like --d 10m"},
		{[]string{"--tls"}, BoolText("true"), func() any { return tls }, ""},
		{[]string{"--tls=false"}, BoolText("false"), func() any { return tls }, ""},
	} {
		text, list, n, n64, size, d, tls = "", nil, 0, 0, 0, 0, ""
		_, err := parse(bind, tc.args...)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: error %v, want one with %q", tc.args, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tc.args, err)
		} else if got := tc.got(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v: read %#v, want %#v", tc.args, got, tc.want)
		}
	}
}

func TestGivenAndHelp(t *testing.T) {
	var a, b string
	fs, err := parse(func(fs *flag.FlagSet) {
		Text(fs, &a, "a", "the `NAME` of a")
		Text(fs, &b, "b", "")
	}, "--a", "x")
	if err != nil {
		t.Fatal(err)
	}
	if got := Given(fs); !reflect.DeepEqual(got, map[string]bool{"a": true}) {
		t.Errorf("Given = %v, want only a", got)
	}
	if name, _ := flag.UnquoteUsage(fs.Lookup("a")); name != "NAME" {
		t.Errorf("the help names the value %q, want NAME", name)
	}
	if def := fs.Lookup("b").DefValue; def != "" {
		t.Errorf("the help shows a default %q, want none", def)
	}
}
