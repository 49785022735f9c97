package listing

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/persona"
	"github.com/wfrun/wfrun/engine/ledger"
)

func TestWriteRunsSaysNoRunsForNone(t *testing.T) {
	var b bytes.Buffer
	WriteRuns(&b, nil, time.Now())
	if b.String() != "No runs.\n" {
		t.Errorf("got %q", b.String())
	}
}

func TestWriteRunsIsATableWithReplayedAgentsAndAge(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r := ledger.Run{ID: "wf_0123456789abcdef", Name: "audit", Status: ledger.RunCompleted, AgentsSpawned: 3,
		Agents: ledger.Counts{Replayed: 2}, Usage: agentapi.Usage{InputTokens: 1200, OutputTokens: 300}, CreatedAt: now.Add(-5 * time.Minute)}
	var b bytes.Buffer
	WriteRuns(&b, []ledger.Run{r}, now)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "ID") {
		t.Fatalf("table:\n%s", b.String())
	}
	for _, cell := range []string{"wf_0123456789abcdef", "audit", "completed", "3 (2 replayed)", "1.5k", "$0.0000", "5m"} {
		if !strings.Contains(lines[1], cell) {
			t.Errorf("row %q lacks %q", lines[1], cell)
		}
	}
}

func TestWriteShownGroupsTheAgentsByPhaseAsATree(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ms := func(n int) json.RawMessage { return json.RawMessage(`{"durationMs":` + strings.Repeat("1", n) + `}`) }
	s := Shown{
		Run:     ledger.Run{ID: "wf_1", Name: "audit", Status: ledger.RunFailed, Owner: "cli", CreatedAt: at, ParentRun: "wf_0", ErrorCode: "SCRIPT_ERROR", Error: "boom"},
		Retries: []string{"wf_2"},
		Children: []ledger.Child{
			{Seq: 1, Label: "read", Phase: "Read", Status: "completed", Replayed: true, Metadata: ms(4)},
			{Seq: 2, Label: "write", Phase: "Read", Status: "failed", Error: "no\nmore"},
			{Seq: 3, Label: "sum", Status: "completed"},
		},
		Timeline: []ledger.Event{{Kind: "note", Detail: "remember", At: at}},
	}
	var b bytes.Buffer
	WriteShown(&b, s)
	out := b.String()
	for _, want := range []string{`wf_1 "audit" failed`, "resumes wf_0", "retried or resumed as wf_2", "SCRIPT_ERROR: boom",
		"  Read", "├─ #1 read", "1.1s", "replayed", "└─ #2 write", "no", "(no phase)", "└─ #3 sum", "Timeline", "note: remember"} {
		if !strings.Contains(out, want) {
			t.Errorf("the run shown lacks %q:\n%s", want, out)
		}
	}
}

func TestToolsTextSaysAllNoneOrTheListWithItsLimits(t *testing.T) {
	for _, tc := range []struct {
		p    persona.Persona
		want string
	}{
		{persona.Persona{}, "all"},
		{persona.Persona{Tools: []string{}}, "none"},
		{persona.Persona{Tools: []string{"Read", "Grep"}, DisallowedTools: []string{"Bash"}}, "Read, Grep (not Bash)"},
		{persona.Persona{ReadOnly: true}, "all [read-only]"},
	} {
		if got := toolsText(tc.p); got != tc.want {
			t.Errorf("toolsText(%+v) = %q, want %q", tc.p, got, tc.want)
		}
	}
}
