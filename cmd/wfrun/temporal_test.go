package main

import (
	"strings"
	"testing"
)

func TestTemporal_FlagsGoWithTheCommandsThatUseThem(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"worker"}, "worker needs --temporal HOST:PORT"},
		{[]string{"worker", "--temporal", "127.0.0.1:1", "--args", "{}"}, "every run brings its own request"},
		{[]string{"worker", "--temporal", "127.0.0.1:1", "--runs-dir", "x"}, "lives in the cluster's history"},
		{[]string{"check", "testdata/hello.js", "--temporal", "127.0.0.1:1"}, "--temporal does not apply to check"},
		{[]string{"testdata/hello.js", "--task-queue", "q"}, "--task-queue goes with --temporal"},
		{[]string{"testdata/hello.js", "--temporal", "127.0.0.1:1", "--runs-dir", "x"}, "--runs-dir does not apply to a run on Temporal"},
		{[]string{"testdata/hello.js", "--temporal", "127.0.0.1:1", "--fake-rules", "testdata/slow.rules.json"}, "give it to wfrun worker"},
		{[]string{"runs", "--parent", "cli"}, "go with --temporal"},
		{[]string{"temporal"}, "wfrun temporal dev"},
		{[]string{"check", "testdata/hello.js", "--tls-ca-path", "ca.pem"}, "--tls-ca-path does not apply to check"},
		{[]string{"agent", "do it", "--api-key", "k"}, "--api-key does not apply to agent"},
		{[]string{"testdata/hello.js", "--tls"}, "--tls goes with --temporal"},
		{[]string{"testdata/hello.js", "--temporal", "127.0.0.1:1", "--address", "127.0.0.1:2"}, "name two servers"},
		{[]string{"runs", "--api-key", "k"}, "go with --temporal"},
		{[]string{"testdata/hello.js", "--temporal", "127.0.0.1:1", "--max-concurrent-agents", "4"}, "it belongs to wfrun worker"},
		{[]string{"mcp", "--max-concurrent-agents", "4"}, "it belongs to wfrun worker"},
		{[]string{"worker", "--temporal", "127.0.0.1:1", "--max-concurrent-agents", "0"}, `--max-concurrent-agents: "0" is not a positive whole number`},
	}
	for _, c := range cases {
		out := wfrun(t, c.args...)
		out.wantCode(t, exitUsage)
		if !strings.Contains(out.stderr, c.want) {
			t.Errorf("wfrun %s: stderr %q, want it to say %q", strings.Join(c.args, " "), out.stderr, c.want)
		}
	}
}

func TestTemporal_DevSaysHowToBuildTheServerWhenItIsMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	out := wfrun(t, "temporal", "dev")
	out.wantCode(t, exitFailed)
	if !strings.Contains(out.stderr, "GOTOOLCHAIN=go1.27.3 go install ./cmd/wfrun-temporal") {
		t.Fatalf("stderr %q", out.stderr)
	}
}
