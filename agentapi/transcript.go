package agentapi

import "strings"

// TranscriptFileName is the file in a transcripts folder that holds one
// child's transcript: the agent id with every character but ASCII letters,
// digits, '_' and '-' replaced by '_' (so that no id can leave the folder),
// "agent" for an empty id, and ".jsonl". Providers that write transcripts
// name them so, and whatever shows them (wfrun ui) finds them by it.
func TranscriptFileName(agentID string) string {
	s := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			return r
		}
		return '_'
	}, agentID)
	if s == "" {
		s = "agent"
	}
	return s + ".jsonl"
}
