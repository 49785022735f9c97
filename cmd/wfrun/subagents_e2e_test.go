package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The continuable sub-agents end to end: the real wfrun mcp process on
// stdio, its sub-agents on the openai provider against the real mock
// server (aimock), driven by the Go MCP client. Two children: a follow-up
// to one while its first turn runs waits and runs as turn two; the other
// is interrupted and a later send wakes it. Then the server process is
// restarted between turns: the children are ready, and a send resumes one
// with its history, which the mock server's request journal shows.

// mcpProcess is one wfrun mcp process and the client session to it.
type mcpProcess struct {
	cs  *mcp.ClientSession
	cmd *exec.Cmd
}

func startMCPProcess(t *testing.T, bin string, environ []string, args ...string) *mcpProcess {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"mcp"}, args...)...)
	cmd.Env = environ
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v0"}, nil).Connect(context.Background(),
		&mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &mcpProcess{cs: cs, cmd: cmd}
	t.Cleanup(func() { p.stop(t) })
	return p
}

// stop closes the session, which closes the server's stdin: it shuts
// down and exits.
func (p *mcpProcess) stop(t *testing.T) {
	t.Helper()
	if p.cs == nil {
		return
	}
	if err := p.cs.Close(); err != nil {
		t.Errorf("closing the session: %v", err)
	}
	p.cs = nil
	if p.cmd.ProcessState == nil || !p.cmd.ProcessState.Exited() || p.cmd.ProcessState.ExitCode() != exitCompleted {
		t.Errorf("wfrun mcp did not exit cleanly: %v", p.cmd.ProcessState)
	}
}

func (p *mcpProcess) call(t *testing.T, name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := p.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if out != nil {
		data, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s: structured content %s: %v", name, data, err)
		}
	}
	return res
}

type turnOut struct {
	Turn   int    `json:"turn"`
	Status string `json:"status"`
	Done   bool   `json:"done"`
	Text   string `json:"text"`
	Error  string `json:"error"`
}

type childOut struct {
	ChildID     string `json:"childId"`
	Status      string `json:"status"`
	Turns       int    `json:"turns"`
	RunningTurn int    `json:"runningTurn"`
	LastReport  string `json:"lastReport"`
}

func (p *mcpProcess) result(t *testing.T, id string, turn int) turnOut {
	t.Helper()
	var r turnOut
	p.call(t, "subagent_result", map[string]any{"childId": id, "turn": turn, "timeoutMs": 20000}, &r)
	if !r.Done {
		t.Fatalf("turn %d of %s did not end: %+v", turn, id, r)
	}
	return r
}

func (p *mcpProcess) list(t *testing.T) []childOut {
	t.Helper()
	var l struct{ Children []childOut }
	p.call(t, "subagent_list", map[string]any{}, &l)
	return l.Children
}

// conversationOf is the messages of the mock server's request whose last
// user message is last, as "role:content", the system prompt as "system".
func conversationOf(t *testing.T, baseURL, last string) []string {
	t.Helper()
	for _, e := range journal(t, baseURL) {
		msgs := e.Body.Messages
		if len(msgs) == 0 || msgs[len(msgs)-1].Role != "user" || msgs[len(msgs)-1].Content != last {
			continue
		}
		var out []string
		for _, m := range msgs {
			if m.Role == "system" {
				out = append(out, "system")
				continue
			}
			out = append(out, m.Role+":"+m.Content)
		}
		return out
	}
	t.Fatalf("the mock server saw no request ending with %q", last)
	return nil
}

func TestEndToEnd_SubagentsTakeFollowUpsAndInterruptsAndSurviveARestartOfTheServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a node server and builds the binary")
	}
	baseURL := startAimock(t, filepath.Join(aimockDir, "fixtures", "subagents.json"))
	bin := buildWfrun(t)
	dir := t.TempDir()
	environ := []string{"PATH=" + os.Getenv("PATH"), "OPENAI_BASE_URL=" + baseURL, "OPENAI_API_KEY=mock",
		"WFRUN_MODEL=gpt-4o-mini", "WFRUN_HEARTBEAT=100ms", "WFRUN_STATE_DIR=" + filepath.Join(dir, "state")}
	args := []string{"--provider", "openai", "--runs-dir", filepath.Join(dir, "runs")}

	first := startMCPProcess(t, bin, environ, args...)
	var a, b childOut
	first.call(t, "subagent_start", map[string]any{"prompt": "Research the history of tabs."}, &a)
	first.call(t, "subagent_start", map[string]any{"prompt": "Survey editor defaults."}, &b)
	var sent struct{ Turn, Ahead int }
	first.call(t, "subagent_send", map[string]any{"childId": a.ChildID, "message": "Also check arxiv."}, &sent)
	if sent.Turn != 2 || sent.Ahead != 1 {
		t.Fatalf("the follow-up during turn one: %+v", sent)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		kids := first.list(t)
		if len(kids) == 2 && kids[1].RunningTurn == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("B's first turn is not running: %+v", kids)
		}
		time.Sleep(20 * time.Millisecond)
	}
	var interrupted struct{ Turn int }
	first.call(t, "subagent_interrupt", map[string]any{"childId": b.ChildID}, &interrupted)
	if interrupted.Turn != 1 {
		t.Fatalf("interrupt: %+v; B's turn one: %+v", interrupted, first.result(t, b.ChildID, 1))
	}
	if r := first.result(t, b.ChildID, 1); r.Status != "cancelled" || r.Error != "interrupted by its parent" {
		t.Fatalf("the interrupted turn: %+v", r)
	}
	if r := first.result(t, a.ChildID, 1); r.Text != "Tabs came from typewriters." {
		t.Fatalf("A's turn one: %+v", r)
	}
	if r := first.result(t, a.ChildID, 2); r.Text != "Arxiv has two papers on indentation." {
		t.Fatalf("A's turn two: %+v", r)
	}
	first.call(t, "subagent_send", map[string]any{"childId": b.ChildID, "message": "Just name two editors."}, nil)
	if r := first.result(t, b.ChildID, 2); r.Text != "Vim and Emacs." {
		t.Fatalf("the later send to B: %+v", r)
	}
	// The follow-up waited for turn one: its request carries turn one's
	// answer. The interrupted turn left only its message.
	if got, want := conversationOf(t, baseURL, "Also check arxiv."), []string{"system", "user:Research the history of tabs.",
		"assistant:Tabs came from typewriters.", "user:Also check arxiv."}; !slices.Equal(got, want) {
		t.Fatalf("the follow-up's request: %q, want %q", got, want)
	}
	if got, want := conversationOf(t, baseURL, "Just name two editors."), []string{"system", "user:Survey editor defaults.",
		"user:Just name two editors."}; !slices.Equal(got, want) {
		t.Fatalf("the request after the interrupt: %q, want %q", got, want)
	}
	first.stop(t)

	second := startMCPProcess(t, bin, environ, args...)
	kids := second.list(t)
	if len(kids) != 2 || kids[0].ChildID != a.ChildID || kids[0].Status != "ready" || kids[1].Status != "ready" ||
		kids[0].Turns != 2 || kids[0].LastReport != "Arxiv has two papers on indentation." {
		t.Fatalf("after the restart: %+v", kids)
	}
	second.call(t, "subagent_send", map[string]any{"childId": a.ChildID, "message": "Summarise what you found."}, nil)
	if r := second.result(t, a.ChildID, 3); r.Text != "Typewriters gave us tabs; two papers study them." {
		t.Fatalf("the resumed turn: %+v", r)
	}
	want := []string{"system", "user:Research the history of tabs.", "assistant:Tabs came from typewriters.",
		"user:Also check arxiv.", "assistant:Arxiv has two papers on indentation.", "user:Summarise what you found."}
	if got := conversationOf(t, baseURL, "Summarise what you found."); !slices.Equal(got, want) {
		t.Fatalf("the resumed sub-agent's request: %q, want %q", got, want)
	}
	transcript, err := os.ReadFile(filepath.Join(dir, "subagents", a.ChildID, "transcript.jsonl"))
	if err != nil || !strings.Contains(string(transcript), `"type":"resume"`) {
		t.Fatalf("the transcript does not record the resume: %v", err)
	}
}
