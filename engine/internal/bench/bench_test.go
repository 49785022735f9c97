package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/internal/testkit/leaktest"
)

// TestMain also serves as the fresh process of the suspended-runs
// workload: wfrunSide.suspended re-executes the test binary with
// suspendedEnv set.
func TestMain(m *testing.M) {
	engine.Init() // the isolated runs re-execute this test binary
	if maybeSuspendedChild() {
		return
	}
	leaktest.VerifyTestMain(m)
}

// TestSmokeComparisonPrintsEveryWorkloadWithBothSides runs the whole
// command at tiny sizes, so that the comparison cannot rot between the long
// runs. It checks what is printed, never a timing.
func TestSmokeComparisonPrintsEveryWorkloadWithBothSides(t *testing.T) {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the comparison needs it")
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-smoke"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
	}
	out := stdout.String()
	for _, want := range []string{
		"machine: ", "node v",
		"trivial run, start to result",
		"4-agent runs per second, 2 lanes",
		"per agent() at 50 fan-out",
		"per agent() at 200 fan-out",
		"20 suspended runs, resident memory",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	// Every workload row has a figure on both sides and a ratio.
	for _, line := range strings.Split(out, "\n") {
		if !strings.Contains(line, "fan-out") && !strings.Contains(line, "start to result") &&
			!strings.Contains(line, "runs per second") && !strings.Contains(line, "resident memory") {
			continue
		}
		if strings.HasPrefix(line, "- ") {
			continue // a note
		}
		if strings.Contains(line, "—") || !strings.Contains(line, "×") {
			t.Errorf("a row without both figures and a ratio: %q", line)
		}
	}
}

func TestBadFlagsExitTwoWithAMessage(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"an unknown flag", []string{"-nope"}, "flag provided but not defined"},
		{"an argument", []string{"extra"}, "takes no arguments"},
		{"a fan-out that is not a number", []string{"-fanout", "10,x"}, `"x" is not a positive number`},
		{"a fan-out of zero", []string{"-fanout", "0"}, `"0" is not a positive number`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(tc.args, &stdout, &stderr); code != 2 {
				t.Fatalf("exit %d, want 2; stderr: %s", code, &stderr)
			}
			if !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("stderr %q lacks %q", &stderr, tc.want)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout should be empty, got %q", &stdout)
			}
		})
	}
}

func TestMissingNodeIsASentence(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"-smoke", "-node", "/nonexistent/node"}, &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "the comparison needs Node.js") {
		t.Errorf("exit %d, stderr %q", code, &stderr)
	}
}

func TestMedianAndRatioFormats(t *testing.T) {
	cases := []struct {
		got, want string
	}{
		{formatRatio(median([]float64{3, 1, 2})), "2.00×"},
		{formatRatio(median([]float64{4, 1, 3, 2})), "2.50×"},
		{formatRatio(0.5), "0.50× (2.0× slower)"},
		{formatRatio(1234.4), "1,234×"},
		{formatRatio(0), "—"},
		{formatCount(10000), "10,000"},
		{formatCount(50), "50"},
		{formatDuration(62.5), "62.50 µs"},
		{formatDuration(18300), "18.3 ms"},
		{formatMiB(611.2), "611 MiB"},
		{formatMiB(82000), "80 GiB"},
	}
	for _, tc := range cases {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
