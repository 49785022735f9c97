package temporal_test

import (
	"flag"
	"io"
	"strings"
	"testing"

	wftemporal "github.com/wfrun/wfrun/engine/temporal"
)

func TestGCFlags_CheckRefusesWhatTheCommandLineGotWrong(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		err  string // "" for none
	}{
		{[]string{}, "temporal gc needs --temporal HOST:PORT"},
		{[]string{"--temporal", "h:1", "--min-age", "-1h"}, "--min-age -1h0m0s is negative"},
		{[]string{"--temporal", "h:1", "--address", "h:2"}, "name two servers"},
		{[]string{"--temporal", "h:1", "--payloads", "gs://bucket"}, `--payloads: the payload store gs://bucket has the scheme "gs"`},
		{[]string{"--profile", "prod", "--payloads", dir}, ""},
		{[]string{"--temporal", "h:1", "--payloads", dir, "--min-age", "0", "--dry-run"}, ""},
	} {
		var g wftemporal.GCFlags
		fs := flag.NewFlagSet("gc", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		g.BindFlags(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatalf("%q: %v", c.args, err)
		}
		err := g.Check()
		if c.err == "" && err != nil {
			t.Errorf("%q: %v", c.args, err)
		}
		if c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%q: %v, want %q", c.args, err, c.err)
		}
	}
}
