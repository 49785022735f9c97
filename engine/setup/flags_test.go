package setup

import (
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestFlagsBind(t *testing.T) {
	var f Flags
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.Bind(fs)
	err := fs.Parse([]string{"--provider", "openai", "--model", "m", "--acp-agent", "a=b", "--acp-agent", "c=d",
		"--sandbox", "read-only", "--sandbox-network", "--sandbox-hide", "/secret", "--workspace", "w", "--agents-dir", "x"})
	if err != nil {
		t.Fatal(err)
	}
	if f.Provider != "openai" || f.Model != "m" || !slices.Equal(f.ACPAgents, []string{"a=b", "c=d"}) || f.Sandbox != "read-only" ||
		!f.SandboxNetwork || !slices.Equal(f.SandboxHide, []string{"/secret"}) || f.Workspace != "w" || !slices.Equal(f.AgentsDirs, []string{"x"}) {
		t.Errorf("Bind read %+v", f)
	}
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--sandbox-hide", "rel"}, `--sandbox-hide "rel" is not an absolute path`},
		{[]string{"--provider", ""}, "--provider is empty"},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		new(Flags).Bind(fs)
		if err := fs.Parse(tc.args); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%v: error %v, want one with %q", tc.args, err, tc.err)
		}
	}
}

func TestRemoteFlags(t *testing.T) {
	for _, tc := range []struct {
		given []string
		err   string // "" for none
	}{
		{nil, ""},
		{[]string{"provider", "model", "budget-tokens"}, ""},
		{[]string{"isolate", "runs-dir"}, "--runs-dir does not apply to a run on Temporal"},
		{[]string{"workspace", "base-url"}, "--base-url configures the providers"},
		{[]string{"fake-rules", "otlp-endpoint"}, "--otlp-endpoint does not apply"},
	} {
		given := map[string]bool{}
		for _, name := range tc.given {
			given[name] = true
		}
		err := RemoteFlags(given)
		if (tc.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%v: error %v, want %q", tc.given, err, tc.err)
		}
	}
}
