package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/wfrun/wfrun/engine/mcpserver"
)

// lineClient speaks newline-delimited JSON-RPC to a server on
// LineTransport, line by line, as a careless or hostile client would.
type lineClient struct {
	t    *testing.T
	in   *io.PipeWriter // the server's input
	out  *bufio.Reader  // the server's output
	next int
}

// answer is one line the server wrote.
type answer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// serveLines runs a session of s over LineTransport on pipes; the session
// ends, and the test waits for it, when the test closes its side.
func serveLines(t *testing.T, s *mcpserver.Server) *lineClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- s.Run(context.Background(), mcpserver.LineTransport(inR, outW))
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		go io.Copy(io.Discard, outR) // the server may still be writing
		select {
		case <-served:
		case <-time.After(10 * time.Second):
			t.Error("the session did not end within 10s of its input closing")
		}
	})
	return &lineClient{t: t, in: inW, out: bufio.NewReaderSize(outR, 1<<20)}
}

func (c *lineClient) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("the server no longer reads its input: %v", err)
	}
}

// read returns the server's next line that is not a notification.
func (c *lineClient) read() answer {
	c.t.Helper()
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			c.t.Fatalf("the server's output ended (%v): the session is over", err)
		}
		var a answer
		if err := json.Unmarshal(line, &a); err != nil {
			c.t.Fatalf("the server wrote a line that is not JSON: %q", line)
		}
		if a.ID != nil || a.Error != nil || a.Result != nil {
			return a
		}
	}
}

// call sends a request and returns its answer.
func (c *lineClient) call(method, params string) answer {
	c.t.Helper()
	c.next++
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, c.next, method, params))
	a := c.read()
	if string(a.ID) != fmt.Sprint(c.next) {
		c.t.Fatalf("the answer to request %d has id %s: %+v", c.next, a.ID, a)
	}
	return a
}

func (c *lineClient) initialize(version string) {
	c.t.Helper()
	if a := c.call("initialize", `{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"lines","version":"0"}}`); a.Error != nil {
		c.t.Fatalf("initialize: %+v", a.Error)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// listsTools checks that the session still answers a request.
func (c *lineClient) listsTools(after string) {
	c.t.Helper()
	a := c.call("tools/list", `{}`)
	if a.Error != nil || !strings.Contains(string(a.Result), `"workflow"`) {
		c.t.Fatalf("after %s the session does not list the tools: %+v %s", after, a.Error, a.Result)
	}
}

func TestLineTransport_ABadLineIsAnsweredAndTheSessionGoesOn(t *testing.T) {
	s, _ := newServer(t, mcpserver.Options{})
	c := serveLines(t, s)
	c.initialize("2025-06-18")
	c.listsTools("initialize")
	for _, tc := range []struct {
		name, line string
		code       int64
		id         string // of the answer; none when ""
		says       string // in the answer's message
	}{
		{"not JSON", "this is not json", -32700, "", "line 4 is not JSON"},
		{"a cut line", `{"jsonrpc":"2.0","id":7,"method":`, -32700, "", "not JSON"},
		{"two values on a line", `{"jsonrpc":"2.0"} {"jsonrpc":"2.0"}`, -32700, "", "not JSON"},
		{"a number", `42`, -32600, "", "not a JSON-RPC 2.0 message"},
		{"no version tag", `{"id":3,"method":"tools/list"}`, -32600, "3", "not a JSON-RPC 2.0 message"},
		{"a boolean id", `{"jsonrpc":"2.0","id":true,"method":"tools/list"}`, -32600, "", "not a JSON-RPC 2.0 message"},
		{"a method that is no string", `{"jsonrpc":"2.0","id":"m","method":5}`, -32600, `"m"`, "not a JSON-RPC 2.0 message"},
		{"a response without an id", `{"jsonrpc":"2.0","result":{}}`, -32600, "", "not a JSON-RPC 2.0 message"},
		{"an empty batch", `[]`, -32600, "", "batch"},
		{"a batch in a version without them", `[{"jsonrpc":"2.0","id":90,"method":"tools/list"}]`, -32600, "", "MCP 2025-06-18 has not"},
		{"a line over the limit", `{"jsonrpc":"2.0","id":91,"method":"x","params":"` + strings.Repeat("a", mcpserver.MaxLineBytes) + `"}`, -32600, "", "longer than 16 MiB"},
		{"params of the wrong kind", `{"jsonrpc":"2.0","id":92,"method":"tools/call","params":"x"}`, 0, "92", ""},
	} {
		c.send(tc.line)
		a := c.read()
		if a.Error == nil || string(a.ID) != tc.id || (tc.code != 0 && a.Error.Code != tc.code) || !strings.Contains(a.Error.Message, tc.says) {
			t.Fatalf("%s: answered %s %+v, want error %d with id %s saying %q", tc.name, a.ID, a.Error, tc.code, tc.id, tc.says)
		}
		c.send("   ") // blank lines are skipped, unanswered
		c.listsTools(tc.name)
	}
}

func TestLineTransport_ABatchPassesInAVersionThatHasThem(t *testing.T) {
	s, _ := newServer(t, mcpserver.Options{})
	c := serveLines(t, s)
	c.initialize("2025-03-26")
	c.send(`[{"jsonrpc":"2.0","id":"a","method":"tools/list"},{"jsonrpc":"2.0","id":"b","method":"ping"}]`)
	line, err := c.out.ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var batch []answer
	if err := json.Unmarshal(line, &batch); err != nil || len(batch) != 2 || batch[0].Error != nil || batch[1].Error != nil {
		t.Fatalf("the batch's answer: %s (%v)", line, err)
	}
	c.send(`[{"jsonrpc":"2.0","id":"c","method":"ping"},{"jsonrpc":"2.0","id":"c","method":"ping"}]`)
	if a := c.read(); a.Error == nil || a.Error.Code != -32600 || !strings.Contains(a.Error.Message, "twice") {
		t.Fatalf("a batch with one id twice: %+v", a.Error)
	}
	c.listsTools("a batch with one id twice")
}
