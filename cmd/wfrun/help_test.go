package main

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/help.golden")

func TestHelpMatchesTheGoldenFile(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"check", "--help"}, {"providers", "-h"}, {"tool", "--help"}, {"mcp", "--help"}, {"agent", "-h"}, {"agents", "--help"}, {"testdata/hello.js", "--help"},
		{"doctor", "--help"}, {"resume", "--help"}, {"retry", "-h"}, {"continue", "--help"}, {"runs", "--help"}, {"show", "-h"}, {"stop", "--help"}, {"note", "--help"}, {"ralph", "--help"}} {
		o := wfrun(t, args...)
		o.wantCode(t, exitCompleted)
		if *update && args[0] == "--help" {
			if err := os.WriteFile("testdata/help.golden", []byte(o.stdout), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile("testdata/help.golden")
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if o.stdout != string(want) {
			t.Errorf("wfrun %q differs from testdata/help.golden; run go test -update and review the diff", args)
		}
	}
}

func TestHelpExplainsEveryFlag(t *testing.T) {
	for _, cmd := range []command{cmdRun, cmdCheck, cmdMCP, cmdAgent, cmdResume, cmdRetry, cmdContinue, cmdRalph} {
		var o options
		newFlagSet(cmd, &o).VisitAll(func(f *flag.Flag) {
			if f.Name != "h" && !strings.Contains(usage, "--"+f.Name) {
				t.Errorf("the usage text does not explain --%s (%s)", f.Name, cmd)
			}
		})
	}
	for _, code := range []string{"0 ", "1 ", "2 ", "130 "} {
		if !strings.Contains(usage, "\n  "+code) {
			t.Errorf("the usage text does not explain exit status %s", code)
		}
	}
}

func TestVersionPrintsOneLine(t *testing.T) {
	o := wfrun(t, "--version")
	o.wantCode(t, exitCompleted)
	if !strings.HasPrefix(o.stdout, "wfrun ") || strings.Count(o.stdout, "\n") != 1 {
		t.Errorf("--version = %q", o.stdout)
	}
}
