package main

import (
	"strings"
	"testing"
)

func TestDoctorListsTheSandboxLayers(t *testing.T) {
	o := wfrun(t, "doctor")
	o.wantCode(t, exitCompleted) // the test machine gives every layer, as CI's does
	for _, want := range []string{"sandbox helper", "non-dumpable", "Landlock", "user and PID namespaces", "mount namespace",
		"IPC namespace", "network namespace", "seccomp", "run in namespaces of their own, under Landlock"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("doctor does not say %q:\n%s", want, o.stdout)
		}
	}
	wfrun(t, "doctor", "extra").wantCode(t, exitUsage)
	wfrun(t, "doctor", "--sandbox").wantCode(t, exitUsage)
}

func TestSandboxHideMustBeAbsolute(t *testing.T) {
	o := wfrun(t, "testdata/hello.js", "--sandbox-hide", "relative/state")
	o.wantCode(t, exitUsage)
	if !strings.Contains(o.stderr, "--sandbox-hide") {
		t.Errorf("stderr %q", o.stderr)
	}
}
