//go:build linux

package escapes

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// This file holds the loopback model: a chat-completions stub that plays
// each child's script, and the canary a sandboxed command must not reach.
// The openai provider does not stream, so the stub answers whole
// completions only.

// childMark is how the stub tells the children apart: each one's prompt
// starts with it.
func childMark(i int) string { return fmt.Sprintf("[escapes child %d]", i+1) }

var markRE = regexp.MustCompile(`\[escapes child (\d+)\]`)

// chatMessage is the part of a request message the stub reads.
type chatMessage struct {
	Role       string `json:"role"`
	Content    any    `json:"content"`
	ToolCallID string `json:"tool_call_id"`
}

func (m chatMessage) text() string {
	switch c := m.Content.(type) {
	case string:
		return c
	case nil:
		return ""
	default:
		data, _ := json.Marshal(c)
		return string(data)
	}
}

// toolResult is a tool message the stub found in a request's history:
// what wfrun sent the model back for one scripted call.
type toolResult struct {
	child, turn, call int
	content           string
}

// stub is one case's model.
type stub struct {
	*httptest.Server
	p       places
	scripts []child

	mu      sync.Mutex
	results map[string]toolResult // by tool_call_id
	turns   map[int]int           // child → the highest turn it was answered
	strays  []string              // requests that were not a child's turn
}

// newStub starts a stub that plays scripts; it is closed when t ends.
func newStub(t *testing.T, p places, scripts []child) *stub {
	s := &stub{p: p, scripts: scripts, results: map[string]toolResult{}, turns: map[int]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// serve answers a request of child N (its prompt carries childMark) at
// turn T (the number of assistant messages in its history) with the T-th
// call of its script, or with the final answer once the script is played,
// and records the tool results the history carries.
func (s *stub) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" {
		s.stray(fmt.Sprintf("%s %s", r.Method, r.URL.Path))
		http.Error(w, "not a chat completion", http.StatusNotFound)
		return
	}
	data, _ := io.ReadAll(r.Body)
	var body struct {
		Messages []chatMessage `json:"messages"`
	}
	if err := json.Unmarshal(data, &body); err != nil {
		s.stray("a body that is not a chat completion request: " + err.Error())
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	ch, turn := -1, 0
	for _, m := range body.Messages {
		switch m.Role {
		case "user":
			if ch < 0 {
				if sm := markRE.FindStringSubmatch(m.text()); sm != nil {
					ch, _ = strconv.Atoi(sm[1])
					ch--
				}
			}
		case "assistant":
			turn++
		}
	}
	if ch < 0 || ch >= len(s.scripts) {
		s.stray("a conversation without a child's mark")
		http.Error(w, "no child mark", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	for _, m := range body.Messages {
		if m.Role == "tool" && m.ToolCallID != "" {
			var c, tn, k int
			fmt.Sscanf(m.ToolCallID, "call_%d_%d_%d", &c, &tn, &k)
			s.results[m.ToolCallID] = toolResult{child: c, turn: tn, call: k, content: m.text()}
		}
	}
	s.turns[ch] = max(s.turns[ch], turn+1)
	s.mu.Unlock()

	msg := map[string]any{"role": "assistant", "content": "done"}
	finish := "stop"
	if turns := s.scripts[ch].Calls; turn < len(turns) {
		var tc []any
		for k, c := range turns[turn].calls() {
			tc = append(tc, map[string]any{"id": fmt.Sprintf("call_%d_%d_%d", ch+1, turn+1, k+1), "type": "function",
				"function": map[string]any{"name": c.Tool, "arguments": s.p.arguments(c)}})
		}
		msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": tc}
		finish = "tool_calls"
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-escapes", "object": "chat.completion", "created": 1, "model": "gpt-4o-mini",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
	})
}

func (s *stub) stray(what string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.strays = append(s.strays, what)
}

// strayRequests returns the requests that were not a child's turn.
func (s *stub) strayRequests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.strays...)
}

// toolResults returns every tool result the stub was sent, by call id.
func (s *stub) toolResults() map[string]toolResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]toolResult, len(s.results))
	for k, v := range s.results {
		out[k] = v
	}
	return out
}

// unplayed lists the children that never reached their final answer:
// their script was not played to the end.
func (s *stub) unplayed() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for i, ch := range s.scripts {
		if s.turns[i] < len(ch.Calls)+1 {
			out = append(out, fmt.Sprintf("child %d answered %d of its %d turns", i+1, s.turns[i], len(ch.Calls)+1))
		}
	}
	return out
}

// canary is a loopback TCP listener and a UDP socket that no sandboxed
// command may reach while the network is off; it counts the connections
// it accepted and the datagrams it received.
type canary struct {
	ln     net.Listener
	udp    net.PacketConn
	wg     sync.WaitGroup
	mu     sync.Mutex
	hits   int
	dgrams int
}

func newCanary(t *testing.T) *canary {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	c := &canary{ln: ln, udp: udp}
	c.wg.Add(2)
	go func() {
		defer c.wg.Done()
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			c.mu.Lock()
			c.hits++
			c.mu.Unlock()
			conn.Close()
		}
	}()
	go func() {
		defer c.wg.Done()
		buf := make([]byte, 2048)
		for {
			if _, _, err := udp.ReadFrom(buf); err != nil {
				return
			}
			c.mu.Lock()
			c.dgrams++
			c.mu.Unlock()
		}
	}()
	t.Cleanup(func() { ln.Close(); udp.Close(); c.wg.Wait() })
	return c
}

// addrs are the canary's host and its TCP and UDP ports.
func (c *canary) addrs() (host, tcpPort, udpPort string) {
	host, tcpPort, _ = net.SplitHostPort(c.ln.Addr().String())
	_, udpPort, _ = net.SplitHostPort(c.udp.LocalAddr().String())
	return host, tcpPort, udpPort
}

// reached returns the TCP connections and UDP datagrams the canary got.
func (c *canary) reached() (connections, datagrams int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.dgrams
}

// containsIn returns the ids of the tool results that contain s.
func containsIn(results map[string]toolResult, s string) []string {
	var out []string
	for id, r := range results {
		if strings.Contains(r.content, s) {
			out = append(out, id)
		}
	}
	return out
}
