package runtime_test

import (
	"context"
	"strings"
	"testing"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/internal/wferr"
	. "github.com/wfrun/wfrun/runtime"
)

// A name-like agent() option, or a phase() title, longer than 1 KiB is
// refused with INVALID_ARGUMENT naming the option, its length and the cap;
// one of exactly 1 KiB is accepted.
func TestCaps_LongOptionsAreRefused(t *testing.T) {
	for _, c := range []struct{ call, what string }{
		{"agent('x', {label: LONG})", "agent() option label is"},
		{"agent({prompt: 'x', description: LONG})", "agent() option description is"},
		{"agent('x', {phase: LONG})", "agent() option phase is"},
		{"agent('x', {model: LONG})", "agent() option model is"},
		{"agent('x', {effort: LONG})", "agent() option effort is"},
		{"agent('x', {agentType: LONG})", "agent() option agentType is"},
		{"agent('x', {persona: LONG})", "agent() option persona is"},
		{"phase(LONG)", "phase()'s title is"},
	} {
		for _, long := range []struct{ src, length string }{
			{"'x'.repeat(20_000_000)", "20000000 characters"},
			{"'é'.repeat(513)", "1026 bytes"},
		} {
			src := "const LONG = " + long.src + "\nreturn await " + c.call
			out, _ := runScript(t, src)
			if out.Err == nil || out.Err.Code != wferr.InvalidArgument {
				t.Errorf("%s with %s: %v, want INVALID_ARGUMENT", c.call, long.src, out.Err)
				continue
			}
			for _, want := range []string{c.what, long.length, "1 KiB (1024 bytes)"} {
				if !strings.Contains(out.Err.Message, want) {
					t.Errorf("%s: %q does not say %q", c.call, out.Err.Message, want)
				}
			}
		}
	}
	out, _ := runScript(t, "const s = 'm'.repeat(1024); phase(s); return await agent('x', {label: s, model: s})")
	if out.Err != nil {
		t.Fatalf("1 KiB options: %v", out.Err)
	}
}

// An agent's error and note keep their first 16 KiB, cut at a character
// boundary.
func TestCaps_LongErrorsAndNotesAreCut(t *testing.T) {
	huge := strings.Repeat("é", 1<<20)
	p := &funcProvider{name: "huge", caps: agentapi.All(), run: func(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
		return agentapi.Result{Status: agentapi.StatusFailed, Failure: agentapi.FailureTaskFailed, Error: huge, Note: huge}, nil
	}}
	out, rec := runScript(t, "try { await agent('x') } catch (e) {} return 0", withProvider(p))
	if out.Err != nil {
		t.Fatalf("run: %v", out.Err)
	}
	ends := rec.Of(EventAgentEnd)
	if len(ends) != 1 {
		t.Fatalf("agent.end events: %d", len(ends))
	}
	for name, s := range map[string]string{"error": ends[0].Error, "note": ends[0].Note} {
		if len(s) > MaxNoteBytes || len(s) < MaxNoteBytes-8 || !strings.HasSuffix(s, "…") || !strings.HasPrefix(s, "éé") {
			t.Errorf("%s kept %d bytes (%q…), want the first %d", name, len(s), s[:min(len(s), 10)], MaxNoteBytes)
		}
	}
}
