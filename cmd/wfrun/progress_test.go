package main

import (
	"strings"
	"testing"

	"github.com/wfrun/wfrun/engine/progress"
)

func TestProgressOnATerminalIsDrawnInPlaceAndClearedBeforeTheResult(t *testing.T) {
	tty := &terminal{}
	o := invoke(t, call{args: []string{"testdata/slow.js", "--provider", "fake", "--fake-rules", "testdata/slow.rules.json", "--agent-timeout", "350ms"}, stderr: tty})
	o.wantCode(t, exitCompleted)
	if !strings.Contains(o.stderr, progress.Clear+"▸ Wait · agents 2 running, 0 done, 0 failed") {
		t.Errorf("no live line on the terminal:\n%q", o.stderr)
	}
	if !strings.HasSuffix(o.stderr, progress.Clear) {
		t.Errorf("the line was not cleared at the end:\n%q", o.stderr)
	}
	if strings.Contains(o.stdout, "▸") {
		t.Errorf("progress leaked onto stdout")
	}
	o.result(t)
}

func TestNoProgressOnATerminalWhenEventsGoThere(t *testing.T) {
	tty := &terminal{}
	o := invoke(t, call{args: []string{"testdata/hello.js", "--provider", "fake", "--events", "-"}, stderr: tty})
	o.wantCode(t, exitCompleted)
	if strings.Contains(o.stderr, "▸") {
		t.Errorf("progress drawn between events:\n%s", o.stderr)
	}
}

func TestNoProgressWhenStderrIsNotATerminal(t *testing.T) {
	o := wfrun(t, "testdata/slow.js", "--provider", "fake", "--fake-rules", "testdata/slow.rules.json", "--agent-timeout", "250ms")
	o.wantCode(t, exitCompleted)
	if o.stderr != "" {
		t.Errorf("stderr = %q, want nothing", o.stderr)
	}
}
