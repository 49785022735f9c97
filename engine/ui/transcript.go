package ui

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/engine/journal"
)

// maxTranscript is how much of one transcript the page reads.
const maxTranscript = 8 << 20

// transcriptPath finds a child's transcript: in its run folder's
// transcripts/, then in the configured folders. "" when there is none.
func (s *Server) transcriptPath(runDir, agentID string) string {
	name := agentapi.TranscriptFileName(agentID)
	for _, dir := range append([]string{filepath.Join(runDir, journal.TranscriptsDir)}, s.cfg.TranscriptDirs...) {
		if p := filepath.Join(dir, name); fileExists(p) {
			return p
		}
	}
	return ""
}

// transcriptRecord is one line of a transcript (the openai provider's
// records: start, message, tool_result, elided, usage, end). Fields a
// record does not have stay empty; a line that is not such a record is
// shown as it is.
type transcriptRecord struct {
	Type    string    `json:"type"`
	Time    time.Time `json:"time"`
	Model   string    `json:"model"`
	Tools   []string  `json:"tools"`
	Persona string    `json:"persona"`
	Message *struct {
		Role      string `json:"role"`
		Content   string `json:"content"`
		Name      string `json:"name"`
		ToolCalls []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"message"`
	ToolCallID string          `json:"toolCallId"`
	Name       string          `json:"name"`
	Content    string          `json:"content"`
	IsError    bool            `json:"isError"`
	Bytes      int             `json:"bytes"`
	Status     string          `json:"status"`
	Failure    string          `json:"failure"`
	Error      string          `json:"error"`
	Note       string          `json:"note"`
	Usage      *agentapi.Usage `json:"usage"`
	Raw        string          `json:"-"`
}

type transcriptPage struct {
	Run       string
	Agent     *agentView
	Records   []transcriptRecord
	Truncated bool
	Path      string
}

// transcriptPage is GET /runs/{id}/agents/{seq}/transcript.
func (s *Server) transcriptPage(w http.ResponseWriter, r *http.Request) {
	v, err := s.loadRun(r.PathValue("id"))
	if err != nil {
		s.runError(w, r, err)
		return
	}
	seq, err := strconv.Atoi(r.PathValue("seq"))
	var agent *agentView
	for _, a := range v.Agents {
		if err == nil && a.Seq == seq {
			agent = a
		}
	}
	if agent == nil {
		s.message(w, r, http.StatusNotFound, "No such agent", "Run "+v.Run.ID+" has no agent #"+r.PathValue("seq")+".")
		return
	}
	path := s.transcriptPath(v.Dir, agent.AgentID)
	if path == "" {
		s.message(w, r, http.StatusNotFound, "No transcript", "Agent #"+r.PathValue("seq")+" of run "+v.Run.ID+" has no transcript: only providers that write one (the openai provider with --transcripts) leave it, and wfrun ui looks in the run folder's transcripts/ and in its own --transcripts folders.")
		return
	}
	p := transcriptPage{Run: v.Run.ID, Agent: agent, Path: path}
	f, err := os.Open(path)
	if err != nil {
		s.message(w, r, http.StatusInternalServerError, "The transcript cannot be read", err.Error())
		return
	}
	defer f.Close()
	data, _ := io.ReadAll(io.LimitReader(f, maxTranscript+1))
	if len(data) > maxTranscript {
		data, p.Truncated = data[:maxTranscript], true
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var rec transcriptRecord
		if json.Unmarshal(line, &rec) != nil || rec.Type == "" {
			rec = transcriptRecord{Type: "raw", Raw: string(line)}
		}
		p.Records = append(p.Records, rec)
	}
	s.render(w, http.StatusOK, "transcript", "layout", p)
}
