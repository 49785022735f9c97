package agentapi_test

import (
	"testing"

	"github.com/wfrun/wfrun/agentapi"
)

func TestTranscriptFileName_KeepsAnIdInsideItsFolder(t *testing.T) {
	for id, want := range map[string]string{
		"wf_1a2b-3":      "wf_1a2b-3.jsonl",
		"../../etc/pass": "______etc_pass.jsonl",
		"a/b\\c d":       "a_b_c_d.jsonl",
		"é":              "_.jsonl",
		"":               "agent.jsonl",
	} {
		if got := agentapi.TranscriptFileName(id); got != want {
			t.Errorf("TranscriptFileName(%q) = %q, want %q", id, got, want)
		}
	}
}
