package openai

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/internal/wferr"
)

// transcript writes one child's conversation as JSON lines, one record
// per event, for a person debugging a run. Only the child's own goroutine
// writes to it. A nil *transcript writes nothing.
//
// Records, by "type": "start" (runId, agentId, model, tools, persona and
// its source file, contextWindow; "resume" for a continued child taken up
// again from its saved history), "message" (a system, user or assistant
// message; an assistant message carries its tool calls), "tool_result"
// (toolCallId, name, content, isError), "elided" (toolCallId, name, bytes:
// a tool result replaced by a stub, or cut, to fit the context window;
// content is what the model sees now), "usage" (one turn's tokens), "end"
// (status, failure, error, note, usage; a continued child writes one at
// the end of each of its turns).
type transcript struct {
	f   *os.File
	enc *json.Encoder
	err error // the first write error; later writes are skipped
}

type record struct {
	Type          string                          `json:"type"`
	Time          time.Time                       `json:"time"`
	RunID         string                          `json:"runId,omitempty"`
	AgentID       string                          `json:"agentId,omitempty"`
	Model         string                          `json:"model,omitempty"`
	Tools         []string                        `json:"tools,omitempty"`
	Persona       string                          `json:"persona,omitempty"`
	Source        string                          `json:"source,omitempty"`
	ContextWindow int                             `json:"contextWindow,omitempty"`
	Bytes         int                             `json:"bytes,omitempty"`
	Message       *goopenai.ChatCompletionMessage `json:"message,omitempty"`
	ToolCallID    string                          `json:"toolCallId,omitempty"`
	Name          string                          `json:"name,omitempty"`
	Content       string                          `json:"content,omitempty"`
	IsError       bool                            `json:"isError,omitempty"`
	Status        agentapi.Status                 `json:"status,omitempty"`
	Failure       agentapi.FailureKind            `json:"failure,omitempty"`
	Error         string                          `json:"error,omitempty"`
	Note          string                          `json:"note,omitempty"`
	Usage         *agentapi.Usage                 `json:"usage,omitempty"`
}

// openTranscript creates DIR/AGENTID.jsonl, or returns nil when dir is "".
// Failing to create it is a misconfiguration (AGENT_START).
func openTranscript(dir, agentID string) (*transcript, error) {
	if dir == "" {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, wferr.Wrap(wferr.AgentStart, err, "the openai provider cannot create the transcript folder %s (%v): choose a writable folder", dir, err)
	}
	path := filepath.Join(dir, agentapi.TranscriptFileName(agentID))
	f, err := os.Create(path)
	if err != nil {
		return nil, wferr.Wrap(wferr.AgentStart, err, "the openai provider cannot write the transcript %s (%v): choose a writable folder", path, err)
	}
	return &transcript{f: f, enc: json.NewEncoder(f)}, nil
}

// TranscriptFile is the name of a continued child's transcript in its own
// folder (ConversationRequest.Dir).
const TranscriptFile = "transcript.jsonl"

// appendTranscript opens DIR/transcript.jsonl for appending, creating it
// (and DIR) if needed: a continued child's transcript grows across turns
// and across processes.
func appendTranscript(dir string) (*transcript, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, wferr.Wrap(wferr.AgentStart, err, "the openai provider cannot create the child's folder %s (%v): choose a writable folder", dir, err)
	}
	path := filepath.Join(dir, TranscriptFile)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, wferr.Wrap(wferr.AgentStart, err, "the openai provider cannot write the transcript %s (%v): choose a writable folder", path, err)
	}
	return &transcript{f: f, enc: json.NewEncoder(f)}, nil
}

func (t *transcript) write(r record) {
	if t == nil || t.err != nil {
		return
	}
	r.Time = time.Now().UTC()
	t.err = t.enc.Encode(r)
}

func (t *transcript) message(m goopenai.ChatCompletionMessage) {
	t.write(record{Type: "message", Message: &m})
}

func (t *transcript) toolResult(o toolOutcome) {
	t.write(record{Type: "tool_result", ToolCallID: o.call.ID, Name: o.call.Function.Name, Content: o.content, IsError: o.failed})
}

func (t *transcript) elided(m goopenai.ChatCompletionMessage, bytes int) {
	t.write(record{Type: "elided", ToolCallID: m.ToolCallID, Name: m.Name, Content: m.Content, Bytes: bytes})
}

func (t *transcript) usage(u agentapi.Usage) {
	t.write(record{Type: "usage", Usage: &u})
}

// close writes the end record and closes the file.
func (t *transcript) close(res agentapi.Result, err error) {
	if t == nil {
		return
	}
	t.end(res, err)
	t.closeFile()
}

// end writes an end record: the child's, or one turn's of a continued
// child.
func (t *transcript) end(res agentapi.Result, err error) {
	end := record{Type: "end", Status: res.Status, Failure: res.Failure, Error: res.Error, Note: res.Note, Usage: &res.Usage}
	if err != nil {
		end.Error = fmt.Sprintf("provider error: %v", err)
	}
	t.write(end)
}

// closeFile closes the file without a record.
func (t *transcript) closeFile() {
	if t != nil {
		_ = t.f.Close()
	}
}
